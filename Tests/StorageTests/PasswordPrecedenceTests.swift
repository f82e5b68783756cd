import Foundation
import Storage
import Testing

/// The one order a password is looked for in (docs/accounts.md, "Where the password comes
/// from"), for the commands that save one and for a run of an account from the
/// environment, and what an account from the environment is given from it.
@Suite("Password precedence")
struct PasswordPrecedenceTests {
    /// A `CREDENTIALS_DIRECTORY` as systemd makes it, with the credential `password`.
    static let credentials: String = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("credentials-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: folder + "/password", contents: Data("pw\n".utf8))
        return folder
    }()

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let purpose: PasswordPrecedence.Purpose
        let environment: [String: String]
        let expected: PasswordPrecedence.Found?
        var testDescription: String { name }
    }

    static let file = "SHELF_PASSWORD_FILE", password = "SHELF_PASSWORD", directory = "CREDENTIALS_DIRECTORY"

    static let cases: [Case] = [
        // The commands that save a password: the option, the file, the password, then nothing (a prompt).
        Case(name: "save: the option beats everything", purpose: .save(optionFile: "opt"),
             environment: [file: "envfile", password: "pw", directory: credentials],
             expected: .file(path: "opt", from: .passwordFileOption)),
        Case(name: "save: SHELF_PASSWORD_FILE beats SHELF_PASSWORD", purpose: .save(optionFile: nil),
             environment: [file: "envfile", password: "pw"], expected: .file(path: "envfile", from: .passwordFileVariable)),
        Case(name: "save: SHELF_PASSWORD alone", purpose: .save(optionFile: nil),
             environment: [password: "pw"], expected: .given("pw")),
        Case(name: "save: an empty SHELF_PASSWORD is still the one given", purpose: .save(optionFile: nil),
             environment: [password: ""], expected: .given("")),
        Case(name: "save: the credential is never saved", purpose: .save(optionFile: nil),
             environment: [directory: credentials], expected: nil),
        Case(name: "save: nothing, so a prompt", purpose: .save(optionFile: nil), environment: [:], expected: nil),
        // A run of an account from the environment: the file, the password, then the credential.
        Case(name: "run: SHELF_PASSWORD_FILE beats SHELF_PASSWORD and the credential", purpose: .run,
             environment: [file: "envfile", password: "pw", directory: credentials],
             expected: .file(path: "envfile", from: .passwordFileVariable)),
        Case(name: "run: SHELF_PASSWORD beats the credential", purpose: .run,
             environment: [password: "pw", directory: credentials], expected: .given("pw")),
        Case(name: "run: the credential when nothing else", purpose: .run,
             environment: [directory: credentials], expected: .file(path: credentials + "/password", from: .systemdCredential)),
        Case(name: "run: a credentials folder without the credential", purpose: .run,
             environment: [directory: credentials + "/none"], expected: nil),
        Case(name: "run: a relative credentials folder is ignored", purpose: .run,
             environment: [directory: "relative"], expected: nil),
        Case(name: "run: nothing", purpose: .run, environment: [:], expected: nil),
    ]

    @Test(arguments: cases)
    func theFirstSourceThereWins(_ item: Case) {
        #expect(PasswordPrecedence.resolve(item.purpose, environment: item.environment) == item.expected)
    }

    /// An account from the environment takes its password from the same order, and says
    /// who named it (a credential's problems are mended differently).
    @Test func anEnvironmentAccountFollowsTheOrder() throws {
        let base = ["SHELF_SERVER": "http://h", "SHELF_USER": "u"]
        let name = try AccountName("default")
        let both = try AccountResolver.fromEnvironment(base.merging([Self.file: "/pw", Self.password: "p"]) { $1 }, name: name)
        #expect(both.password == .file(path: "/pw", origin: .environment))
        let given = try AccountResolver.fromEnvironment(base.merging([Self.password: "p", Self.directory: Self.credentials]) { $1 }, name: name)
        #expect(given.password == .given("p", origin: .environment))
        let credential = try AccountResolver.fromEnvironment(base.merging([Self.directory: Self.credentials]) { $1 }, name: name)
        #expect(credential.password == .file(path: Self.credentials + "/password", origin: .systemdCredential))
    }
}
