import Domain
@testable import Encryption
import Foundation
import Testing

/// Secrets never reach text: not through `String(describing:)`, interpolation,
/// `String(reflecting:)`, `dump`, nor through any error Shelf's encryption throws.
@Suite("No secret in any text")
struct RedactionTests {
    static let passphraseText = "tr0ub4dor&3-hidden"
    static let plaintextTitle = "A Title Nobody May See"

    private func everyRendering(of value: Any) -> String {
        var dumped = ""
        dump(value, to: &dumped)
        return [String(describing: value), String(reflecting: value), "\(value)", dumped].joined(separator: "\n")
    }

    @Test func keysAndPassphrasesDescribeThemselvesWithoutTheirBytes() throws {
        let key = try DataKey.generate()
        let passphrase = try Passphrase(Self.passphraseText)
        let kek = try PassphraseKDF.derive(from: passphrase, salt: .random(), parameters: TestKeys.cheapParameters())
        let ring = Keyring(current: key)
        let identifiers = try KeyedIdentifier(key: key)
        let kekKey = try DataKey(bytes: kek.bytes)
        let texts = [key, passphrase, kek, ring, identifiers, key.bytes].map { everyRendering(of: $0) }
        let secrets = TestKeys.renderings(of: key) + TestKeys.renderings(of: kekKey) + [Self.passphraseText]
        for text in texts {
            for secret in secrets { #expect(!text.contains(secret), "\(text)") }
        }
        #expect(String(describing: key) == "DataKey(id: \(key.id))")
        #expect(String(describing: passphrase) == "Passphrase(hidden)")
    }

    @Test func noErrorCarriesAPassphraseAKeyOrPlaintext() throws {
        let key = try DataKey.generate()
        let sealer = RecordSealer(keyring: Keyring(current: key), bucket: "default")
        let record: [String: JSONValue] = ["id": "gr-7", "title": .string(Self.plaintextTitle)]
        let sealed = try sealer.seal(record, in: "books", sequence: 1)
        var tampered = sealed
        var envelope = try #require(tampered["shelf_enc"]?.objectValue)
        envelope["c"] = .string(Data(repeating: 7, count: 80).base64EncodedString())
        tampered["shelf_enc"] = .object(envelope)
        let wrapped = try WrappedKey.wrap(key, passphrase: Passphrase(Self.passphraseText), parameters: TestKeys.cheapParameters())
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let looseFile = try scratch.write(Self.passphraseText, to: "passphrase", mode: 0o644)

        var errors: [EncryptionError] = []
        func collect(_ body: () throws -> Void) {
            do { try body() } catch let error as EncryptionError { errors.append(error) } catch { Issue.record("\(error)") }
        }
        collect { _ = try sealer.open(record, in: "books") }
        collect { _ = try sealer.open(tampered, in: "books") }
        collect { _ = try sealer.open(sealed, in: "notes") }
        collect { _ = try RecordSealer(keyring: Keyring(current: DataKey.generate()), bucket: "default").open(sealed, in: "books") }
        collect { _ = try wrapped.unwrap(passphrase: Passphrase(Self.passphraseText + "x")) }
        collect { _ = try PassphraseSource.file(path: looseFile).read() }
        collect { _ = try Passphrase(String(repeating: Self.passphraseText, count: 100)) }
        #expect(errors.count == 7)
        let secrets = TestKeys.renderings(of: key) + [Self.passphraseText, Self.plaintextTitle]
        for error in errors {
            let text = everyRendering(of: error) + error.description
            for secret in secrets { #expect(!text.contains(secret), "\(text)") }
        }
    }
}
