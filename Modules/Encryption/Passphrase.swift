import Vocabulary

// MARK: - Passphrase

/// A reader's passphrase, held in secure memory and never printed.
///
/// A `String` given to `init(_:)` stays wherever Swift put it; `PassphraseSource` reads a
/// file's bytes straight into secure memory instead, so that path leaves no copy behind.
public struct Passphrase: Sendable {
    let bytes: SecretBytes

    /// The longest passphrase accepted: long enough for any passphrase a person types or a
    /// password manager makes, short enough to bound what a file may make Shelf read.
    public static let maximumBytes = 1024

    /// - Throws: `.emptyPassphrase`, `.passphraseTooLong`.
    public init(_ text: String) throws(EncryptionError) {
        let utf8 = Array(text.utf8)
        try self.init(count: utf8.count) { start, count in start.update(from: utf8, count: count) }
    }

    /// A passphrase typed at a prompt, read by `fill` straight into secure memory: no
    /// `String` or array ever holds it. `fill` gets a buffer of `maximumBytes + 1` bytes and
    /// returns how many it wrote (more than `maximumBytes` means too long), or nil when
    /// there was nothing to read (no terminal, end of input).
    public static func reading(_ fill: (UnsafeMutableRawBufferPointer) -> Int?) throws(EncryptionError) -> Passphrase? {
        var written: Int?
        let buffer = try SecretBytes.make(count: maximumBytes + 1) { start, capacity in
            written = fill(UnsafeMutableRawBufferPointer(start: start, count: capacity)).map { min(max($0, 0), capacity) }
        }
        guard let written else { return nil }
        try check(count: written)
        return try Passphrase(bytes: buffer.prefix(written))
    }

    /// Whether both are the same passphrase (constant time): a confirmation typed twice.
    public func hasSameBytes(as other: Passphrase) -> Bool {
        bytes.hasSameBytes(as: other.bytes)
    }

    init(bytes: SecretBytes) throws(EncryptionError) {
        try Self.check(count: bytes.count)
        self.bytes = bytes
    }

    private init(count: Int, fill: (UnsafeMutablePointer<UInt8>, Int) -> Void) throws(EncryptionError) {
        try Self.check(count: count)
        bytes = try SecretBytes.make(count: count) { start, count in fill(start, count) }
    }

    private static func check(count: Int) throws(EncryptionError) {
        guard count > 0 else { throw .emptyPassphrase }
        guard count <= maximumBytes else { throw .passphraseTooLong(maximum: maximumBytes) }
    }
}

extension Passphrase: RedactedDescription {
    public var redactedSummary: String { "Passphrase(hidden)" }
}

// MARK: - Shelf's rule

extension Passphrase {
    /// What falls short of Shelf's rule for a new passphrase (`PassphraseRule`), measured
    /// in secure memory; empty when it holds.
    public var shortcomings: [String] {
        bytes.withUnsafeBytes { PassphraseRule.shortcomings(utf8: $0) }
    }
}
