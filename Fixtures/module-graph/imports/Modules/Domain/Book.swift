import Foundation

public struct Book {}
