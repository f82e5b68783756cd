import Foundation
import Services

// MARK: - Backups

/// A server started with `KintoServer.startWithBackups()` keeps a copy of its storage on
/// demand and puts it back, as restoring a database backup would: records, tombstones
/// and timestamps all go back to the moment of the copy.
extension KintoServer {
    public struct BackupError: Error, CustomStringConvertible {
        public let status: Int
        public let body: String
        public var description: String { "backup endpoint answered \(status): \(body)" }
    }

    /// Keeps a copy of everything stored now.
    public func saveBackup() async throws { try await backup("save") }

    /// Puts the last copy back.
    public func restoreBackup() async throws { try await backup("restore") }

    private func backup(_ command: String) async throws {
        let response = try await CurlTransport.shared.send(HTTPRequest(
            method: .post, url: "\(origin)/__backup__/\(command)",
            timeouts: Timeouts(connect: .seconds(5), request: .seconds(10))))
        guard response.status == 200 else {
            throw BackupError(status: response.status, body: String(decoding: response.body, as: UTF8.self))
        }
    }
}
