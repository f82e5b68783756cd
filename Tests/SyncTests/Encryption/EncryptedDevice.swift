import Domain
import Encryption
import Foundation
import Records
import Services
import Storage
import Sync
import TestSupport

// MARK: - EncryptedDevice

/// A `SyncDevice` with a key file and a lock file of its own, and the account's
/// encryption use cases over them.
struct EncryptedDevice {
    let device: SyncDevice
    let folder: TemporaryDirectory
    let encryption: AccountEncryption

    /// Argon2id at libsodium's minimum: the tests' passphrases cost nothing to derive.
    static let cheap: KDFParameters = {
        // NB: the force try is safe: libsodium's minimum is within Shelf's bounds (checked by EncryptionTests).
        try! KDFParameters(opsLimit: 1, memoryBytes: 8192)
    }()

    /// - Parameter pageSize: records a page asks for (every list of a run: pulls, the
    ///   migration's list of envelopes).
    init(user: TestUser, server: KintoServer, policy: ConflictPolicy = .manual, pageSize: Int = 10_000) throws {
        folder = try TemporaryDirectory()
        let keyFile = folder.url.appendingPathComponent("keys", isDirectory: true).appendingPathComponent("account.key")
        var options = SyncOptions(policy: policy, retry: .none, pageSize: pageSize)
        options.keyFile = keyFile
        device = try SyncDevice(user: user, server: server, options: options)
        encryption = AccountEncryption(
            account: user.name, store: device.store, client: device.client, keyFile: keyFile,
            lockFile: folder.file("account.lock"))
    }

    func enable(_ passphrase: String) async throws -> Int {
        try await encryption.enable(passphrase: try Passphrase(passphrase), parameters: Self.cheap).queued
    }

    @discardableResult
    func join(_ passphrase: String) async throws -> [KeyringProblem] {
        try await encryption.join(passphrase: try Passphrase(passphrase)).problems
    }
}

// MARK: - The server's copy, raw

extension SyncDevice {
    /// A book as the server holds it: its raw fields, sealed or not.
    func rawServerBook(_ id: String) async throws -> [String: JSONValue] {
        try await KintoCollectionService(client: client, collection: .books).record(id: id).fields()
    }

    /// Writes a book's raw fields straight to the server, as a hostile server (or a client
    /// that is not Shelf) would.
    func writeRawServerBook(_ id: String, _ fields: [String: JSONValue]) async throws {
        var body = fields
        ServerOwnedFields.removeAll(from: &body)
        _ = try await client.write(try .update(in: KintoCollectionPath(.books), id: id, data: try WireJSON.data(body), ifMatch: nil))
    }
}
