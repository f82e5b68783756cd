@testable import Encryption
import Foundation

// MARK: - Test keys and places

/// What the tests share: a KDF cost cheap enough for a test (libsodium's minimums: one
/// pass over 8 KiB, a millisecond) and private scratch folders.
enum TestKeys {
    static func cheapParameters() throws -> KDFParameters {
        try KDFParameters(opsLimit: 1, memoryBytes: 8192)
    }

    static func passphrase(_ text: String = "correct horse battery staple") throws -> Passphrase {
        try Passphrase(text)
    }

    /// The key's bytes as hex and base64: what must never appear in any text.
    static func renderings(of key: DataKey) -> [String] {
        let bytes = key.bytes.withUnsafeBytes { Array($0) }
        return [Hex.string(bytes), Data(bytes).base64EncodedString()]
    }
}

/// A folder under the system's temporary folder, removed by `remove()`.
struct ScratchFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-encryption-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }

    /// Writes `text` to `name` with `mode`.
    @discardableResult
    func write(_ text: String, to name: String, mode: Int) throws -> String {
        let path = path(name)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }
}
