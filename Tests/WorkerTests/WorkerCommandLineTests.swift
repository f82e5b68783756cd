import Foundation
import Storage
import TestSupport
import Testing

/// `shelf-sync` as cron sees it: flags, configuration errors, exit codes, logs.
@Suite("shelf-sync: command line and configuration")
struct WorkerCommandLineTests {
    let home: WorkerHome

    init() throws {
        home = try WorkerHome(server: "http://127.0.0.1:9/v1", user: TestUser(prefix: "cli"))
    }

    /// NB: the built binary, end to end; the other command-line tests run in-process.
    @Test func versionAndHelp() throws {
        let version = try home.runBinary(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout == "shelf-sync 0.1.0\n")
        let help = try home.runBinary(["--help"])
        #expect(help.status == 0)
        for section in ["OVERVIEW:", "USAGE: shelf-sync [<options>]", "OPTIONS:", "EXIT CODES:", "--all-accounts", "--every <duration>"] {
            #expect(help.stdout.contains(section))
        }
    }

    /// The help's examples are lines the worker accepts (asked again with `--help`, so
    /// nothing runs; an unknown option or a value not allowed would be refused, 64).
    @Test func theHelpsExamplesAreAccepted() async throws {
        let help = try await home.run(["--help"]).stdout
        let examples = help.components(separatedBy: "\nEXAMPLES:\n").dropFirst().first?
            .components(separatedBy: "\n\n").first?
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.hasSuffix(":") } ?? []
        #expect(examples.count >= 2, "\(help)")
        for example in examples {
            let words = example.split(separator: " ").map(String.init)
            #expect(words.first == "shelf-sync", "\(example)")
            let run = try await home.run(Array(words.dropFirst()) + ["--help"])
            #expect(run.status == 0 && run.stdout == help, "\(example): \(run.stderr)")
        }
    }

    @Test(arguments: [
        (["--bogus"], "Error: Unknown option '--bogus'"),
        (["--every", "soon"], "Error: Invalid value 'soon' for '--every'"),
        (["--log-format", "xml"], "Error: Invalid value 'xml' for '--log-format'; expected one of: text, json"),
        (["--account", "a", "--all-accounts"], "Error: Use either '--account' or '--all-accounts', not both"),
        (["--page-size", "0"], "Error: Invalid value '0' for '--page-size'"),
        (["extra"], "Error: Unexpected argument 'extra'"),
    ])
    func usageErrorsExit64WithTheUsageLine(_ arguments: [String], _ message: String) throws {
        let result = try home.runBinary(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix(message))
        #expect(result.stderr.contains("Usage: shelf-sync [<options>]\n  See 'shelf-sync --help'."))
    }

    @Test func noAccountIsAConfigurationError() async throws {
        var bare = home
        bare.environment = bare.environment.filter { !$0.key.hasPrefix("SHELF_") }
        let result = try await bare.run(["--report", bare.reportPath])
        #expect(result.status == 78)
        #expect(result.stderr.contains("no account configured"))
        let report = try bare.report()
        #expect(report["exit_code"] as? Int == 78)
        #expect(report["exit_reason"] as? String == "configuration_error")
    }

    @Test func aPasswordFileReadableByOthersIsRefused() async throws {
        let secret = home.root.appendingPathComponent("password")
        try Data("hunter2-secret\n".utf8).write(to: secret)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: secret.path)
        var env = home
        env.environment["SHELF_PASSWORD"] = nil
        env.environment["SHELF_PASSWORD_FILE"] = secret.path
        let result = try await env.run()
        #expect(result.status == 78)
        #expect(result.stderr.contains("accessible by group or others (mode 644)"))
        #expect(!result.stderr.contains("hunter2-secret"))
    }

    @Test func anUnreachableServerIsATemporaryFailure() async throws {
        let closed = try ClosedLoopbackPort()
        var env = home
        env.environment["SHELF_SERVER"] = closed.origin
        let result = try await env.run(["--report", env.reportPath, "--log-format", "json"])
        #expect(result.status == 75)
        #expect(try env.report()["exit_reason"] as? String == "temporary_failure")
        #expect(result.stderr.contains(#""event":"retrying""#))
        #expect(!result.stderr.contains(env.environment["SHELF_PASSWORD"] ?? "?"))
    }

    @Test func refusedCredentialsExit77WithoutLeakingThem() async throws {
        let server = try ScriptedHTTPServer { _, _ in
            .json(401, #"{"code":401,"errno":104,"error":"Unauthorized","message":"Please authenticate yourself to use this endpoint."}"#)
        }
        defer { server.stop() }
        var env = home
        env.environment["SHELF_SERVER"] = server.baseURL
        let result = try await env.run(["--report", env.reportPath])
        #expect(result.status == 77)
        #expect(try env.report()["exit_reason"] as? String == "authentication_failed")
        let password = try #require(env.environment["SHELF_PASSWORD"])
        #expect(!result.stderr.contains(password))
        #expect(!(try String(contentsOfFile: env.reportPath, encoding: .utf8)).contains(password))
        #expect(!result.stderr.contains("Authorization"))
    }

    @Test func retryAfterIsHonouredByTheNextRun() async throws {
        let server = try ScriptedHTTPServer { _, _ in
            .json(503, #"{"code":503,"errno":201,"error":"Service Unavailable","message":"storage down"}"#, headers: [("Retry-After", "120")])
        }
        defer { server.stop() }
        var env = home
        env.environment["SHELF_SERVER"] = server.baseURL
        let first = try await env.run(["--report", env.reportPath])
        #expect(first.status == 75)
        #expect(try env.accountReport()["backoff_until"] != nil)
        #expect(server.requestLines.count == 1)

        let second = try await env.run(["--report", env.reportPath])
        #expect(second.status == 75)
        #expect(server.requestLines.count == 1)  // the server was not asked again
        #expect(try env.accountReport()["requests"] as? Int == 0)
    }

    @Test func aRefusedChangeIsParkedAndTheRestGoThrough() async throws {
        let server = try ScriptedHTTPServer { line, _ in
            if line.hasPrefix("POST /v1/batch") {
                return .json(200, #"""
                {"responses":[
                 {"status":400,"path":"/v1/buckets/default/collections/notes/records/n-bad","headers":{},
                  "body":{"code":400,"errno":107,"error":"Invalid parameters","message":"data.title: too long"}},
                 {"status":201,"path":"/v1/buckets/default/collections/notes/records/n-good","headers":{},
                  "body":{"data":{"id":"n-good","title":"Fine","body":"","book_id":null,"last_modified":20}}}]}
                """#)
            }
            return .json(200, #"{"data":[]}"#, headers: [("ETag", "\"1\"")])
        }
        defer { server.stop() }
        var env = home
        env.environment["SHELF_SERVER"] = server.baseURL
        let store = try env.store()
        for (id, title) in [("n-bad", String(repeating: "long ", count: 40)), ("n-good", "Fine")] {
            _ = try store.write { tx in
                try tx.saveLocal(.notes, id: id, json: Data(#"{"id":"\#(id)","title":"\#(title)","body":"","book_id":null}"#.utf8))
            }
        }
        let result = try await env.run(["--report", env.reportPath])
        #expect(result.status == 1)
        #expect(try env.report()["exit_reason"] as? String == "needs_attention")
        #expect(try env.collectionReport("notes")["dead_letters"] as? Int == 1)
        #expect(try env.collectionReport("notes")["pushed"] as? Int == 1)
        #expect(try store.read { try $0.deadLetters() }.map(\.recordID) == ["n-bad"])
        #expect(result.stderr.contains("notes/n-bad: refused by the server (400)"))
    }
}
