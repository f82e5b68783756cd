import Foundation
import Storage
import TestSupport
import Testing

/// The crontab line printed in Apps/shelf-sync/README.md, run as cron runs it: `sh -c`
/// with nothing but HOME and PATH=/usr/bin:/bin, on an account just added.
@Suite("shelf-sync: the documented crontab line")
struct CronLineTests {
    let server: KintoServer

    init() throws {
        server = try KintoServer.shared()
    }

    /// The command of the first crontab entry in the README's ```cron block.
    static func documentedCommand() throws -> String {
        let readme = try String(contentsOf: FixtureFiles.repositoryRoot.appendingPathComponent("Apps/shelf-sync/README.md"), encoding: .utf8)
        let block = try #require(readme.components(separatedBy: "```cron\n").dropFirst().first?.components(separatedBy: "```").first)
        let entry = try #require(block.split(separator: "\n").first { !$0.hasPrefix("#") && !$0.trimmingCharacters(in: .whitespaces).isEmpty })
        // Five time fields, then the command as the shell sees it.
        let fields = entry.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
        return String(try #require(fields.count == 6 ? fields[5] : nil)).trimmingCharacters(in: .whitespaces)
    }

    @Test func theLineWorksAsPrintedOnAFreshAccount() async throws {
        let command = try Self.documentedCommand()
        #expect(command.hasPrefix("/usr/local/bin/shelf-sync "))  // absolute: cron's PATH is /usr/bin:/bin
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-cron-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)

        // A fresh account, as 'shelf account add --password-file' leaves it.
        let user = try await server.newUser(prefix: "cron")
        let paths = ShelfPaths(environment: ["HOME": home.path])
        let secret = home.appendingPathComponent(".config/shelf/password")
        try FileManager.default.createDirectory(at: secret.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(user.password.utf8).write(to: secret)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: secret.path)
        try AccountStore(paths: paths).add(try AccountName("reading"),
                                           try AccountConfig(server: server.baseURL, user: user.name, passwordFile: secret.path))
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: home.path))

        // The line exactly as printed, but for where this build's binary is.
        let line = command.replacingOccurrences(of: "/usr/local/bin/", with: BuiltProduct.url("shelf-sync").deletingLastPathComponent().path + "/")
        let result = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/env"),
                                           ["-i", "HOME=\(home.path)", "PATH=/usr/bin:/bin", "/bin/sh", "-c", line],
                                           environment: [:])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.isEmpty && result.stderr.isEmpty)  // cron mails nothing

        let state = home.appendingPathComponent(".local/state/shelf")
        let log = try String(contentsOf: state.appendingPathComponent("sync.log"), encoding: .utf8).split(separator: "\n")
        #expect(log.last?.contains("INFO [reading] sync finished: synced") == true, "\(log)")
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: state.appendingPathComponent("sync-report.json"))) as? [String: Any]
        #expect(report?["exit_reason"] as? String == "synced")
        for (path, mode) in [(state.path, 0o700), (state.appendingPathComponent("sync.log").path, 0o600),
                             (state.appendingPathComponent("sync-report.json").path, 0o600)] {
            #expect((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue == mode, "\(path)")
        }
        // Only the store's and the log's folders are new.
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: home.path)).subtracting(before) == [".local"])
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: home.appendingPathComponent(".local").path)) == ["share", "state"])

        // The next tick, with nothing new, appends one line.
        #expect(try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/env"),
                                      ["-i", "HOME=\(home.path)", "PATH=/usr/bin:/bin", "/bin/sh", "-c", line], environment: [:]).status == 0)
        let after = try String(contentsOf: state.appendingPathComponent("sync.log"), encoding: .utf8).split(separator: "\n")
        #expect(after.count == log.count + 1)
        #expect(after.last?.contains("INFO [reading] nothing to do (") == true, "\(after)")
    }
}
