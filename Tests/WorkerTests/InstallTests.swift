import Foundation
import TestSupport
import Testing

/// `make install DESTDIR=…` puts every shipped file where the prefix says, the man pages
/// render without a warning, and `make uninstall` takes back exactly what was put.
/// The just-built debug binaries stand in for release ones (`BUILT=.build/debug`).
@Suite("make install and uninstall")
struct InstallTests {
    let root: URL

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-install-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    private func make(_ arguments: [String]) throws -> ProcessResult {
        try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/make"),
            ["-s", "-C", FixtureFiles.repositoryRoot.path, "BUILT=.build/debug", "MAN_OUT=\(root.path)/man"] + arguments,
            environment: ["PATH": "/usr/bin:/bin", "HOME": root.path])
    }

    private func files(under folder: URL) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: folder.path)
        var found: [String] = []
        while let path = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent(path).path, isDirectory: &isDirectory), !isDirectory.boolValue {
                found.append("/" + path)
            }
        }
        return found.sorted()
    }

    @Test func installPutsEveryFileAndUninstallTakesThemAllBack() throws {
        let destination = root.appendingPathComponent("dest")
        let install = try make(["install", "DESTDIR=\(destination.path)", "PREFIX=/opt/shelf"])
        #expect(install.status == 0, "\(install.stderr)")
        let expected = [
            "/opt/shelf/bin/shelf", "/opt/shelf/bin/shelf-sync",
            "/opt/shelf/lib/systemd/system/shelf-sync.service", "/opt/shelf/lib/systemd/system/shelf-sync.timer",
            "/opt/shelf/lib/systemd/user/shelf-sync.service", "/opt/shelf/lib/systemd/user/shelf-sync.timer",
            "/opt/shelf/share/bash-completion/completions/shelf", "/opt/shelf/share/fish/vendor_completions.d/shelf.fish",
            "/opt/shelf/share/man/man1/shelf-sync.1", "/opt/shelf/share/man/man1/shelf.1",
            "/opt/shelf/share/shelf/installed-files", "/opt/shelf/share/zsh/site-functions/_shelf",
        ]
        let installed = files(under: destination)
        #expect(installed == expected)
        let manifest = try String(contentsOf: destination.appendingPathComponent("opt/shelf/share/shelf/installed-files"), encoding: .utf8)
        #expect(manifest.split(separator: "\n").map(String.init).sorted() == installed)

        let binary = try FileManager.default.attributesOfItem(atPath: destination.appendingPathComponent("opt/shelf/bin/shelf-sync").path)
        #expect((binary[.posixPermissions] as? NSNumber)?.intValue == 0o755)
        for scope in ["system", "user"] {
            let unit = try String(contentsOf: destination.appendingPathComponent("opt/shelf/lib/systemd/\(scope)/shelf-sync.service"), encoding: .utf8)
            #expect(unit.contains("\nExecStart=/opt/shelf/bin/shelf-sync "))
        }
        for page in ["shelf", "shelf-sync"] {
            let path = destination.appendingPathComponent("opt/shelf/share/man/man1/\(page).1").path
            let rendered = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/man"), ["--warnings", "-l", path],
                                                 environment: ["PATH": "/usr/bin:/bin", "MANWIDTH": "80", "HOME": root.path])
            #expect(rendered.status == 0)
            #expect(rendered.stderr.isEmpty, "\(page).1: \(rendered.stderr)")
            #expect(rendered.stdout.contains("SYNOPSIS"))
        }
        let syncPage = try String(contentsOfFile: destination.appendingPathComponent("opt/shelf/share/man/man1/shelf-sync.1").path, encoding: .utf8)
        #expect(syncPage.contains("\\-\\-log\\-level"))
        #expect(syncPage.contains(".SH EXIT STATUS\n"))
        let bash = try String(contentsOfFile: destination.appendingPathComponent("opt/shelf/share/bash-completion/completions/shelf").path, encoding: .utf8)
        #expect(bash.contains("complete -F _shelf shelf\n"))
        let zsh = try String(contentsOfFile: destination.appendingPathComponent("opt/shelf/share/zsh/site-functions/_shelf").path, encoding: .utf8)
        #expect(zsh.hasPrefix("#compdef shelf\n"))

        let uninstall = try make(["uninstall", "DESTDIR=\(destination.path)", "PREFIX=/opt/shelf"])
        #expect(uninstall.status == 0, "\(uninstall.stderr)")
        #expect(files(under: destination).isEmpty)
    }

    @Test func uninstallLeavesFilesItDidNotInstall() throws {
        let destination = root.appendingPathComponent("dest")
        #expect(try make(["install", "DESTDIR=\(destination.path)"]).status == 0)
        let other = destination.appendingPathComponent("usr/local/bin/someone-elses-tool")
        try Data("#!/bin/sh\n".utf8).write(to: other)
        #expect(try make(["uninstall", "DESTDIR=\(destination.path)"]).status == 0)
        #expect(files(under: destination) == ["/usr/local/bin/someone-elses-tool"])
    }
}
