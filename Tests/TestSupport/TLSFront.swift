import Foundation

// MARK: - TLSFront

/// `https://` in front of a test Kinto, the way a TLS reverse proxy serves one in
/// production: a throw-away CA made with the `openssl` CLI in a temporary folder, a
/// server certificate it signs, and `Scripts/tls-front.py` relaying to the Kinto.
///
/// `caFile` verifies the front; `otherCAFile` is a second CA that signed nothing here.
/// With `hostNames` other than this machine's, the certificate names another host.
public final class TLSFront: Sendable {
    public let port: Int
    /// The CA that signed the server certificate (PEM).
    public let caFile: String
    /// A CA unrelated to the server's certificate (PEM).
    public let otherCAFile: String
    /// `https://127.0.0.1:<port>/v1`.
    public var baseURL: String { "https://127.0.0.1:\(port)/v1" }

    private let folder: URL
    private let process: ReadyProcess

    public enum SetupError: Error, CustomStringConvertible {
        case openssl(String)
        public var description: String {
            switch self {
            case .openssl(let why): "openssl failed: \(why) (make setup installs it)"
            }
        }
    }

    /// Starts a front relaying to `upstreamPort` on 127.0.0.1.
    /// - Parameter subjectAltNames: what the server certificate names, as openssl's
    ///   `subjectAltName` (default: this machine, `IP:127.0.0.1,DNS:localhost`).
    public static func start(upstreamPort: Int, subjectAltNames: String = "IP:127.0.0.1,DNS:localhost") throws -> TLSFront {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try openssl(["req", "-x509"] + curve + ["-keyout", path("ca.key"), "-out", path("ca.pem"), "-days", "2", "-subj", "/CN=Shelf test CA"])
        try openssl(["req", "-x509"] + curve + ["-keyout", path("other.key"), "-out", path("other.pem"), "-days", "2", "-subj", "/CN=Shelf other CA"])
        try openssl(["req"] + curve + ["-keyout", path("server.key"), "-out", path("server.csr"), "-subj", "/CN=shelf-test-server"])
        try Data("subjectAltName=\(subjectAltNames)\n".utf8).write(to: folder.appendingPathComponent("ext.cnf"))
        try openssl(["x509", "-req", "-in", path("server.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"),
                     "-CAcreateserial", "-out", path("server.pem"), "-days", "2", "-extfile", path("ext.cnf")])

        let process = try ReadyProcess.launch("the TLS front", [
            FixtureFiles.repositoryRoot.appendingPathComponent("Scripts/tls-front.py").path,
            "--cert", path("server.pem"), "--key", path("server.key"), "--upstream", String(upstreamPort),
        ])
        return TLSFront(caFile: path("ca.pem"), otherCAFile: path("other.pem"), folder: folder, process: process)
    }

    private init(caFile: String, otherCAFile: String, folder: URL, process: ReadyProcess) {
        self.port = process.port
        self.caFile = caFile
        self.otherCAFile = otherCAFile
        self.folder = folder
        self.process = process
    }

    /// Stops the front and removes its keys. Safe to call twice.
    public func stop() {
        process.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    deinit { stop() }

    private static func openssl(_ arguments: [String]) throws {
        let result = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/openssl"), arguments, environment: ProcessInfo.processInfo.environment)
        guard result.status == 0 else { throw SetupError.openssl(result.stderr.suffix(400).description) }
    }
}
