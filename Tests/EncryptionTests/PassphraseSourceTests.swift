@testable import Encryption
import Foundation
import Testing

@Suite("Passphrases from files and systemd credentials")
struct PassphraseSourceTests {
    @Test func theEnvironmentNamesTheSource() {
        #expect(PassphraseSource.fromEnvironment(["SHELF_PASSPHRASE_FILE": "/p"]) == .file(path: "/p"))
        #expect(PassphraseSource.fromEnvironment(["CREDENTIALS_DIRECTORY": "/run/c"])
            == .systemdCredential(directory: "/run/c", name: "shelf-passphrase"))
        #expect(PassphraseSource.fromEnvironment(["SHELF_PASSPHRASE_FILE": "/p", "CREDENTIALS_DIRECTORY": "/run/c"]) == .file(path: "/p"))
        #expect(PassphraseSource.fromEnvironment(["SHELF_PASSPHRASE_FILE": ""]) == nil)
        #expect(PassphraseSource.fromEnvironment([:]) == nil)
    }

    @Test(arguments: [
        ("open sesame\n", "open sesame"),
        ("open sesame\r\n", "open sesame"),
        ("open sesame", "open sesame"),
        ("open sesame\n\n", "open sesame\n"),
        (" spaced out ", " spaced out "),
    ])
    func oneTrailingNewlineIsDropped(_ contents: String, _ expected: String) throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let path = try scratch.write(contents, to: "passphrase", mode: 0o600)
        let passphrase = try PassphraseSource.file(path: path).read()
        #expect(passphrase.bytes.withUnsafeBytes { Array($0) } == Array(expected.utf8))
    }

    @Test func aPassphraseFileOthersCanReadIsRefused() throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let path = try scratch.write("open sesame\n", to: "passphrase", mode: 0o640)
        let source = PassphraseSource.file(path: path)
        #expect(throws: EncryptionError.passphraseSource(source: source.description, problem: .permissionsTooOpen(mode: "640"))) {
            try source.read()
        }
    }

    @Test func aMissingEmptyOrHugeFileIsRefused() throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let missing = PassphraseSource.file(path: scratch.path("none"))
        #expect(throws: EncryptionError.passphraseSource(source: missing.description, problem: .missing)) { try missing.read() }
        let empty = PassphraseSource.file(path: try scratch.write("\n", to: "empty", mode: 0o600))
        #expect(throws: EncryptionError.emptyPassphrase) { try empty.read() }
        let huge = PassphraseSource.file(path: try scratch.write(String(repeating: "x", count: 5000), to: "huge", mode: 0o600))
        #expect(throws: EncryptionError.passphraseSource(source: huge.description, problem: .tooLarge(limit: 1026))) { try huge.read() }
        let long = PassphraseSource.file(path: try scratch.write(String(repeating: "x", count: 1025), to: "long", mode: 0o600))
        #expect(throws: EncryptionError.passphraseTooLong(maximum: 1024)) { try long.read() }
    }

    @Test func aSystemdCredentialIsRead() throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        // systemd sets a credential's mode itself; Shelf does not second-guess it.
        try scratch.write("from systemd", to: "shelf-passphrase", mode: 0o440)
        let source = PassphraseSource.systemdCredential(directory: scratch.url.path, name: "shelf-passphrase")
        #expect(try source.read().bytes.withUnsafeBytes { Array($0) } == Array("from systemd".utf8))
    }

    @Test func aCredentialNameThatLeavesItsFolderIsRefused() throws {
        let source = PassphraseSource.systemdCredential(directory: "/run/credentials/shelf", name: "../etc/shadow")
        #expect(throws: EncryptionError.self) { try source.read() }
    }

    @Test func aWrappedKeyOpensWithAPassphraseFromAFile() throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let key = try DataKey.generate()
        let wrapped = try WrappedKey.wrap(key, passphrase: TestKeys.passphrase("open sesame"), parameters: TestKeys.cheapParameters())
        let path = try scratch.write("open sesame\n", to: "passphrase", mode: 0o600)
        #expect(try wrapped.unwrap(passphrase: PassphraseSource.file(path: path).read()).id == key.id)
    }
}
