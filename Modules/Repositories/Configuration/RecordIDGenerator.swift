import Foundation

// MARK: - RecordIDGenerator

/// Makes the id of a record the reader creates.
///
/// Ids are made locally, offline, and must never collide with another device's: a
/// random UUID does that. Its lower-case form (36 characters of hex digits and `-`)
/// is a valid `RecordID` and a valid Kinto record id.
public struct RecordIDGenerator: Sendable {
    private let make: @Sendable () -> String

    public init(_ make: @escaping @Sendable () -> String) {
        self.make = make
    }

    public func next() -> String {
        make()
    }

    /// Random UUIDs, lower case: `3f2b…-…`.
    public static let uuid = RecordIDGenerator { UUID().uuidString.lowercased() }
}
