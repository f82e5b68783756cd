import Foundation
import Vocabulary

// MARK: - FieldReader

/// Reads the members of a sealed record's envelope or a wrapped key, each failure a
/// `.malformed` that names the member and what it should be, never what was there: the
/// value came from a server and could be anything.
struct FieldReader {
    let fields: [String: JSONValue]
    /// What the fields are, for messages ("the envelope", "a wrapped key").
    let subject: String

    init(_ fields: [String: JSONValue], of subject: String) {
        self.fields = fields
        self.subject = subject
    }

    func string(_ name: String) throws(EncryptionError) -> String {
        guard case .string(let text)? = fields[name] else { throw missing(name, "a string") }
        return text
    }

    /// An integer member within `range` (a version, a cost).
    func integer(_ name: String, in range: ClosedRange<Int>) throws(EncryptionError) -> Int {
        guard let value = fields[name]?.intValue, range.contains(value) else {
            throw missing(name, "an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    func object(_ name: String) throws(EncryptionError) -> [String: JSONValue] {
        guard let object = fields[name]?.objectValue else { throw missing(name, "an object") }
        return object
    }

    /// Standard base64 of exactly `length` bytes (a nonce, a salt).
    func base64(_ name: String, length: Int) throws(EncryptionError) -> [UInt8] {
        try base64(name, limit: length, exact: true)
    }

    /// Standard base64 of at most `maximum` bytes (a ciphertext).
    func base64(_ name: String, maximum: Int) throws(EncryptionError) -> [UInt8] {
        try base64(name, limit: maximum, exact: false)
    }

    /// The text's length is checked before decoding, so a huge member costs nothing.
    /// `limit` is one of this module's constants, far from overflowing.
    private func base64(_ name: String, limit: Int, exact: Bool) throws(EncryptionError) -> [UInt8] {
        var text = try string(name)
        let decoded = text.utf8.count <= (limit / 3 + 1) * 4
            ? text.withUTF8 { Base64.decode(UnsafeRawBufferPointer($0), maximum: limit) } : nil
        guard let decoded, !exact || decoded.count == limit else {
            throw missing(name, exact ? "base64 of \(limit) bytes" : "base64 of at most \(limit) bytes")
        }
        return decoded
    }

    func keyID(_ name: String) throws(EncryptionError) -> KeyID {
        try KeyID(string(name))
    }

    /// The members beyond `known`, counted: a sealed record carries nothing else in the
    /// clear, so an extra member is refused, not passed along unauthenticated.
    func requireOnly(_ known: Set<String>) throws(EncryptionError) {
        let extra = fields.keys.filter { !known.contains($0) }.count
        guard extra == 0 else { throw .malformed(reason: "\(subject) has \(extra) member(s) Shelf does not write") }
    }

    private func missing(_ name: String, _ shape: String) -> EncryptionError {
        .malformed(reason: "\(subject)'s \"\(name)\" is not \(shape)")
    }
}
