import Domain
@testable import Encryption
import Foundation
import Records
import Testing
import TestSupport

/// The format proved by a second implementation: `Tests/Interop/shelf_format.py`, written
/// in Python with PyNaCl from docs/encryption-format.md alone, run with the project's
/// `.venv` (where `make setup` installs the pinned PyNaCl).
///
/// Fresh data every run, both ways: Python opens a keyring and records Shelf made just
/// now under a new passphrase, and derives the same KEK, key ids and keyed ids; Shelf opens
/// and verifies a keyring and records Python made under its own keys. A Python without
/// PyNaCl fails these tests; nothing here is skipped.
@Suite("A second implementation of the encryption format (Python, PyNaCl)", .serialized)
struct InteropTests {
    static let folder = FixtureFiles.repositoryRoot.appendingPathComponent("Tests/Interop")

    // MARK: - The vectors

    @Test func thePythonImplementationPassesTheKnownAnswerVectors() async throws {
        let run = try await Self.python(["-m", "unittest", "discover", "-v", "-s", Self.folder.path, "-p", "test_*.py"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stderr.contains("\nOK"), "\(run.stderr)")
        #expect(!run.stderr.contains("skipped"), "\(run.stderr)")
    }

    // MARK: - Both ways

    @Test func shelfAndPythonOpenWhatTheOtherSealedJustNow() async throws {
        // GIVEN what Shelf makes now: two keys under a new passphrase, a keyring, records.
        let exchange = try Exchange()
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let request = folder.path("request.json")
        try WireJSON.data(exchange.request()).write(to: URL(fileURLWithPath: request))

        // WHEN Python reads it and makes its own.
        let run = try await Self.python([Self.folder.appendingPathComponent("interop.py").path, request])
        try #require(run.status == 0, "\(run.stdout)\(run.stderr)")
        let answer = try WireJSON.fields(Data(run.stdout.utf8))

        // THEN Python read Shelf's, and Shelf reads Python's.
        try exchange.checkPythonRead(try KnownAnswerTests.object(answer["read"]))
        try exchange.checkShelfReads(try KnownAnswerTests.object(answer["made"]))
    }

    // MARK: - Running Python

    /// The project's `.venv` Python, off Swift's cooperative pool.
    static func python(_ arguments: [String]) async throws -> ProcessResult {
        let python = KintoServer.python
        try #require(FileManager.default.isExecutableFile(atPath: python.path), "no Python at \(python.path): run 'make setup'")
        let inherited = ProcessInfo.processInfo.environment
        var environment = ["PATH": inherited["PATH"] ?? "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"]
        environment["TMPDIR"] = inherited["TMPDIR"]
        return try await ProcessRunner.runInBackground(python, arguments, environment: environment)
    }
}

// MARK: - Exchange

/// One run's fresh data on Shelf's side, and what it expects of Python's answer.
private struct Exchange {
    let passphrase: String
    let cheap: KDFParameters
    let first: DataKey
    let second: DataKey
    let kek: KeyEncryptionKey
    let keyring: KeyringRecord
    let sealed: [(collection: String, text: String)]
    let opened: [[String: JSONValue]]
    let naturalIDs: [(collection: String, id: String)]
    /// What Python is to seal: the records Shelf then opens, and the fields it must find.
    let asked: [[String: JSONValue]]
    let pythonPassphrase: String
    let pythonVersion: Int

    init() throws {
        passphrase = "Shelf \(UUID().uuidString) — clé"
        pythonPassphrase = "PyNaCl \(UUID().uuidString) — ключ"
        cheap = try TestKeys.cheapParameters()
        first = try DataKey.generate()
        second = try DataKey.generate()
        kek = try PassphraseKDF.derive(from: Passphrase(passphrase), salt: .random(), parameters: cheap)
        keyring = try KeyringRecord.make(
            version: Int64.random(in: 1...1_000), current: second.id, identity: first.id, plaintextClosed: Bool.random(),
            wrapped: [first.id: try WrappedKey.wrap(first, with: kek), second.id: try WrappedKey.wrap(second, with: kek)],
            states: [first.id: .retiring, second.id: .current], keys: [first, second])

        let sealer = RecordSealer(keyring: Keyring(current: second, older: [first]), bucket: "default")
        let bookID = UUID().uuidString.lowercased()
        let noteID = UUID().uuidString.lowercased()
        let sequence = Int64.random(in: 1...1_000_000)
        let stamp = Int64.random(in: 1_600_000_000_000...1_800_000_000_000)
        var records: [(String, [String: JSONValue])] = [
            ("books", try sealer.seal(Self.book(id: bookID), in: "books", sequence: sequence)),
            ("notes", try sealer.seal(Self.note(id: noteID, bookID: bookID), in: "notes", sequence: 1)),
            ("books", try sealer.sealDeletion(id: bookID, lineage: [UUID().uuidString, UUID().uuidString], sequence: sequence + 1, in: "books")),
        ]
        for index in records.indices { records[index].1["last_modified"] = .number(Double(stamp + Int64(index))) }
        sealed = try records.map { (collection: $0.0, text: String(decoding: try WireJSON.data($0.1), as: UTF8.self)) }
        opened = try sealed.map { item in
            try WireJSON.fields(try sealer.open(RawRecord(scanning: Data(item.text.utf8)), in: item.collection).record.json)
        }
        naturalIDs = [("books", "gr-\(Int.random(in: 1...99_999_999))"), ("notes", "gr-\(Int.random(in: 1...99_999_999))-review"),
                      ("books", "cal-\(Int.random(in: 1...99_999))")]

        let askedBook = UUID().uuidString.lowercased()
        pythonVersion = Int.random(in: 1...1_000)
        asked = [
            ["collection": "books", "id": .string(askedBook), "seq": .number(Double(Int.random(in: 1...1_000))), "last_modified": 1_700_000_000_001,
             "fields": .object(Self.book(id: askedBook))],
            ["collection": "notes", "id": .string(UUID().uuidString.lowercased()), "seq": 1, "last_modified": 1_700_000_000_002,
             "fields": .object(Self.note(id: "ignored", bookID: askedBook))],
            ["collection": "books", "id": .string(askedBook), "seq": 1_001, "last_modified": 1_700_000_000_003, "deletion": true,
             "lineage": .array([.string(UUID().uuidString)])],
        ]
    }

    /// A book with what JSON can hold: escapes, text beyond ASCII, numbers, null, nesting.
    static func book(id: String) -> [String: JSONValue] {
        [
            "id": .string(id), "title": .string("Tôi \(UUID().uuidString.prefix(8)) \"quoted\" \\ back\tslash / 📚"),
            "author_name": "Ursula K. Le Guin", "finished": .bool(Bool.random()), "rating": .number(Double(Int.random(in: 0...40)) / 8),
            "pages": .number(Double(Int.random(in: -5...2_000_000_000))), "book_id": .null,
            "shelves": ["to-read", .object(["nested": .array([.null, true, 1.5e-7])])],
            "_shelf_revs": .array([.string(UUID().uuidString)]),
        ]
    }

    static func note(id: String, bookID: String) -> [String: JSONValue] {
        ["id": .string(id), "book_id": .string(bookID), "title": "Über \u{7}", "body": .string("line one\nline two\r\n\u{0}end")]
    }

    func request() throws -> [String: JSONValue] {
        [
            "read": .object([
                "passphrase": .string(passphrase),
                "keyring": .string(String(decoding: try WireJSON.data(keyring.fields), as: UTF8.self)),
                "records": .array(sealed.map { .object(["collection": .string($0.collection), "record": .string($0.text)]) }),
                "natural_ids": .array(naturalIDs.map { .object(["collection": .string($0.collection), "natural_id": .string($0.id)]) }),
            ]),
            "make": .object([
                "passphrase": .string(pythonPassphrase), "ops": .number(Double(cheap.opsLimit)), "mem": .number(Double(cheap.memoryBytes)),
                "version": .number(Double(pythonVersion)), "records": .array(asked.map(JSONValue.object)),
                "natural_ids": .array(naturalIDs.map { .object(["collection": .string($0.collection), "natural_id": .string($0.id)]) }),
            ]),
        ]
    }

    // MARK: - Python read Shelf's

    func checkPythonRead(_ read: [String: JSONValue]) throws {
        let keys = try KnownAnswerTests.object(read["keys"])
        #expect(keys.count == 2)
        for key in [first, second] {
            #expect(keys[key.id.rawValue]?.stringValue == Hex.string(KnownAnswerVectors.secret(key.bytes)), "key \(key.id)")
            #expect(read["key_ids"]?[Hex.string(KnownAnswerVectors.secret(key.bytes))]?.stringValue == key.id.rawValue)
            #expect(read["wrap_digests"]?[key.id.rawValue]?.stringValue == keyring.wrapped[key.id]?.digest)
        }
        #expect(read["kek"]?.stringValue == Hex.string(KnownAnswerVectors.secret(kek.bytes)))
        #expect(read["digest"]?.stringValue == keyring.manifest.digest)
        let pythonOpened = try KnownAnswerTests.array(read["opened"])
        #expect(pythonOpened.count == opened.count)
        for (python, shelf) in zip(pythonOpened, opened) {
            #expect(python == .object(shelf))
        }
        let identifier = try KeyedIdentifier(key: first)
        #expect(try KnownAnswerTests.array(read["keyed_ids"]).map(\.stringValue) == naturalIDs.map { identifier.id(for: $0.id, in: $0.collection) })
    }

    // MARK: - Shelf reads Python's

    func checkShelfReads(_ made: [String: JSONValue]) throws {
        // The keyring opens with Python's passphrase, verifies, and names its keys as Python did.
        let record = try KeyringRecord(fields: WireJSON.fields(Data(try KnownAnswerTests.string(made["keyring"]).utf8)))
        let (keyring, problems) = try record.open(passphrase: Passphrase(pythonPassphrase))
        #expect(problems.isEmpty)
        #expect(record.manifest.version == Int64(pythonVersion) && record.manifest.plaintextClosed)
        #expect(try record.verify(with: keyring.keys) == 2)
        let keys = try KnownAnswerTests.object(made["keys"])
        for key in keyring.keys {
            #expect(keys[key.id.rawValue]?.stringValue == Hex.string(KnownAnswerVectors.secret(key.bytes)), "key \(key.id)")
        }
        #expect(keyring.current.id == record.manifest.current && record.manifest.keys[record.manifest.identity]?.state == .retired)

        // The same KEK from Python's salt.
        let salt = try KDFSalt(bytes: KnownAnswerTests.bytes(made["salt"]))
        let kek = try PassphraseKDF.derive(from: Passphrase(pythonPassphrase), salt: salt, parameters: cheap)
        #expect(made["kek"]?.stringValue == Hex.string(KnownAnswerVectors.secret(kek.bytes)))

        // Every record opens to the fields Python was asked to seal.
        let sealer = RecordSealer(keyring: keyring, bucket: "default")
        let records = try KnownAnswerTests.array(made["records"])
        #expect(records.count == asked.count)
        for (item, ask) in zip(records, asked) {
            let collection = try KnownAnswerTests.string(item["collection"])
            let text = try KnownAnswerTests.string(item["record"])
            let opened = try sealer.open(RawRecord(scanning: Data(text.utf8)), in: collection)
            let fields = try WireJSON.fields(opened.record.json)
            let id = try KnownAnswerTests.string(ask["id"])
            let sequence = try KnownAnswerTests.integer(ask["seq"])
            #expect(opened.sequence == Int64(sequence) && opened.keyID == keyring.current.id)
            var expected: [String: JSONValue]
            if ask["deletion"] == .bool(true) {
                #expect(opened.isDeletion)
                expected = ["_shelf_revs": ask["lineage"] ?? .null, "deleted": true]
            } else {
                expected = try KnownAnswerTests.object(ask["fields"])
            }
            expected["id"] = .string(id)
            expected["last_modified"] = ask["last_modified"]
            expected["_shelf_seq"] = .number(Double(sequence))
            #expect(fields == expected, "\(collection)/\(id)")
        }

        // Keyed ids under Python's identity key.
        let identity = try #require(keyring.key(for: record.manifest.identity))
        let identifier = try KeyedIdentifier(key: identity)
        #expect(try KnownAnswerTests.array(made["keyed_ids"]).map(\.stringValue) == naturalIDs.map { identifier.id(for: $0.id, in: $0.collection) })
    }
}
