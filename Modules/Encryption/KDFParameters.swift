import CSodium
import Vocabulary

// MARK: - KDFParameters

/// Argon2id's cost, stored with every wrapped key so it can be raised later without
/// breaking the keys already wrapped.
///
/// `recommended` was chosen by measurement on a 2-core machine (Modules/Encryption/README.md,
/// "Key derivation": `swift run -c release shelf-bench-kdf`). Values read from a server are
/// checked against Shelf's own caps as well as libsodium's bounds: a wrapped key that asks
/// for 64 GiB or a thousand passes is refused instead of exhausting the machine.
public struct KDFParameters: Hashable, Sendable {
    /// The one algorithm Shelf uses: Argon2id version 1.3 (`crypto_pwhash_ALG_ARGON2ID13`).
    public static let algorithm = "argon2id13"

    /// Passes over the memory (`opslimit`).
    public let opsLimit: UInt64
    /// Memory in bytes (`memlimit`).
    public let memoryBytes: UInt64

    /// What a new wrapped key uses: 256 MiB, 3 passes.
    public static let recommended = KDFParameters(checkedOpsLimit: 3, memoryBytes: 256 << 20)

    /// The most a wrapped key may ask for: 1 GiB and 10 passes, about ten seconds here
    /// (512 MiB and 3 passes take 1.3–1.9 s), so a wrapped key from a server is bounded.
    public static let maximumMemoryBytes: UInt64 = 1 << 30
    public static let maximumOpsLimit: UInt64 = 10

    /// - Throws: `.invalidKDFParameters` outside libsodium's bounds or Shelf's caps.
    public init(opsLimit: UInt64, memoryBytes: UInt64) throws(EncryptionError) {
        let opsRange = UInt64(crypto_pwhash_opslimit_min())...Self.maximumOpsLimit
        let memoryRange = UInt64(crypto_pwhash_memlimit_min())...Self.maximumMemoryBytes
        guard opsRange.contains(opsLimit) else {
            throw .invalidKDFParameters(reason: "opslimit \(opsLimit) is outside \(opsRange.lowerBound)...\(opsRange.upperBound)")
        }
        guard memoryRange.contains(memoryBytes) else {
            throw .invalidKDFParameters(reason: "memlimit \(memoryBytes) bytes is outside \(memoryRange.lowerBound)...\(memoryRange.upperBound)")
        }
        self.init(checkedOpsLimit: opsLimit, memoryBytes: memoryBytes)
    }

    private init(checkedOpsLimit: UInt64, memoryBytes: UInt64) {
        self.opsLimit = checkedOpsLimit
        self.memoryBytes = memoryBytes
    }
}

// MARK: - JSON form

/// `{"name": "argon2id13", "ops": 3, "mem": 268435456}`, inside a wrapped key; reading
/// it checks the bounds.
extension KDFParameters {
    public var fields: [String: JSONValue] {
        ["name": .string(Self.algorithm), "ops": .number(Double(opsLimit)), "mem": .number(Double(memoryBytes))]
    }

    /// - Throws: `.malformed` for a missing or mistyped member or another algorithm,
    ///   `.invalidKDFParameters` outside the bounds.
    public init(fields: [String: JSONValue]) throws(EncryptionError) {
        let reader = FieldReader(fields, of: "key-derivation parameters")
        guard try reader.string("name") == Self.algorithm else {
            throw .malformed(reason: "key-derivation parameters name an algorithm other than \(Self.algorithm)")
        }
        try self.init(opsLimit: UInt64(reader.integer("ops", in: 1...Int(Self.maximumOpsLimit))),
                      memoryBytes: UInt64(reader.integer("mem", in: 1...Int(Self.maximumMemoryBytes))))
    }
}
