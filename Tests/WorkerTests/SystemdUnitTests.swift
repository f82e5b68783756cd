import Foundation
import TestSupport
import Testing

/// The systemd units as shipped: both pairs pass `systemd-analyze verify`, and
/// `systemd-analyze security` rates the system service "OK" or better (≤ 3.0) and the
/// user service no worse than its measured 6.4 (a user manager cannot build the
/// namespaces that make up most of the system unit's score).
@Suite("shelf-sync: systemd units")
struct SystemdUnitTests {
    static let analyze = URL(fileURLWithPath: "/usr/bin/systemd-analyze")
    /// Without the tool the tests are skipped, and say so: `make setup` installs it
    /// (Debian's `systemd` package).
    static let analyzeIsInstalled = FileManager.default.isExecutableFile(atPath: analyze.path)
    static let notInstalled: Comment = "systemd-analyze is not installed (Debian's systemd package; make setup installs it)"
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-units-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    enum Scope: String, CaseIterable { case system, user }

    /// The pair, with ExecStart pointed at the binary just built (verify checks it exists).
    private func units(_ scope: Scope) throws -> [URL] {
        let target = folder.appendingPathComponent(scope.rawValue)
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        return try ["shelf-sync.service", "shelf-sync.timer"].map { name in
            let source = FixtureFiles.repositoryRoot.appendingPathComponent("Apps/shelf-sync/systemd/\(scope.rawValue)/\(name)")
            let text = try String(contentsOf: source, encoding: .utf8)
                .replacingOccurrences(of: "/usr/local/bin/shelf-sync", with: BuiltProduct.url("shelf-sync").path)
            let url = target.appendingPathComponent(name)
            try text.write(to: url, atomically: true, encoding: .utf8)
            return url
        }
    }

    /// `systemd-analyze --user` needs a runtime folder even offline.
    private var environment: [String: String] {
        let runtime = folder.appendingPathComponent("runtime")
        try? FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return ["PATH": "/usr/bin:/bin", "XDG_RUNTIME_DIR": runtime.path, "HOME": folder.path]
    }

    @Test(.enabled(if: analyzeIsInstalled, notInstalled), arguments: Scope.allCases)
    func bothPairsVerify(_ scope: Scope) throws {
        let files = try units(scope)
        let result = try ProcessRunner.run(Self.analyze, (scope == .user ? ["--user"] : []) + ["verify"] + files.map(\.path),
                                           environment: environment)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
    }

    @Test(.enabled(if: analyzeIsInstalled, notInstalled), arguments: [(Scope.system, 30), (Scope.user, 64)])
    func theServiceIsHardened(_ scope: Scope, _ threshold: Int) throws {
        let service = try units(scope)[0]
        // --threshold is on the 0...100 scale behind the 0.0...10.0 shown.
        let result = try ProcessRunner.run(
            Self.analyze,
            (scope == .user ? ["--user"] : []) + ["security", "--offline=true", "--threshold=\(threshold)", "--no-pager", service.path],
            environment: environment)
        let verdict = result.stdout.split(separator: "\n").last { $0.contains("Overall exposure level") } ?? ""
        #expect(result.status == 0, "\(verdict)")
        if scope == .system { #expect(verdict.contains(" OK ")) }
    }

    @Test func theTimersCatchUpAndSpreadTheirStarts() throws {
        for scope in Scope.allCases {
            let timer = try String(contentsOf: try units(scope)[1], encoding: .utf8)
            #expect(timer.contains("\nOnCalendar="))
            #expect(timer.contains("\nPersistent=true"))
            #expect(timer.contains("\nRandomizedDelaySec="))
            // Persistent= does nothing for monotonic timers, so none may be there.
            #expect(!timer.contains("OnBootSec") && !timer.contains("OnUnitActiveSec"))
        }
    }

    @Test func thePasswordNeverAppearsInTheSystemUnit() throws {
        let service = try String(contentsOf: try units(.system)[0], encoding: .utf8)
        #expect(service.contains("\nLoadCredential=password:"))
        #expect(service.contains("\nEnvironment=SHELF_PASSWORD_FILE=%d/password"))
        #expect(!service.contains("SHELF_PASSWORD="))
    }
}
