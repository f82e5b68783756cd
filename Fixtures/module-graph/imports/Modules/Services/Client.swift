import Domain
import Foundation

struct Client {}
