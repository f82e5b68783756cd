import ArgumentParsing
import Foundation
import Testing

/// Text for a value from standard input or the person's editor.
@Suite("Text from standard input and the editor")
struct TextInputTests {
    @Test func theEditorIsVisualThenEditorThenVi() {
        #expect(ExternalEditor(environment: ["VISUAL": "nano", "EDITOR": "ed"]).command == "nano")
        #expect(ExternalEditor(environment: ["VISUAL": "", "EDITOR": "ed"]).command == "ed")
        #expect(ExternalEditor(environment: ["EDITOR": ""]).command == "vi")
        #expect(ExternalEditor(environment: [:]).command == "vi")
    }

    /// A descriptor open on a file holding `bytes` (what `shelf … < file` gives).
    private func input(_ bytes: [UInt8]) throws -> Int32 {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("stdin-\(UUID().uuidString)")
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let descriptor = open(url.path, O_RDONLY)
        try #require(descriptor >= 0)
        return descriptor
    }

    @Test func standardInputIsReadWholeWithoutItsFinalLineBreaks() throws {
        let descriptor = try input(Array("one\r\ntwo\n\n".utf8))
        defer { close(descriptor) }
        #expect(try StandardInputText.read(from: descriptor, limit: 100) == "one\r\ntwo")
    }

    @Test func standardInputPastTheLimitOrNotUTF8IsRefused() throws {
        // More than one read's worth, so the bound is checked across reads.
        let large = try input([UInt8](repeating: UInt8(ascii: "a"), count: 200_000))
        defer { close(large) }
        #expect(throws: TextInputError.tooLarge(source: "standard input", limit: 100_000)) {
            try StandardInputText.read(from: large, limit: 100_000)
        }
        let latin1 = try input([0x63, 0x61, 0x66, 0xE9])
        defer { close(latin1) }
        #expect(throws: TextInputError.notUTF8(source: "standard input")) { try StandardInputText.read(from: latin1, limit: 100) }
    }

    @Test func anEditedTextIsRefusedWhenBlankOrUnchanged() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("editor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // `true` saves what it was given; the file's final line break is not a change.
        let unchanged = try ExternalEditor(environment: ["EDITOR": "true", "TMPDIR": folder.path]).edit("Fish", name: "note", limit: 100)
        #expect(unchanged.text == "Fish")
        #expect(throws: TextInputError.unchanged(what: "the body")) { try unchanged.accepted(what: "the body", refuseUnchanged: true) }
        #expect(try unchanged.accepted(what: "the body", refuseUnchanged: false) == "Fish")
        let blank = try ExternalEditor(environment: ["EDITOR": "true", "TMPDIR": folder.path]).edit("", name: "note", limit: 100)
        #expect(throws: TextInputError.empty(what: "the body")) { try blank.accepted(what: "the body", refuseUnchanged: false) }
        // Nothing is left behind once the texts are settled.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test func aKeptFileStaysAndADiscardedOneGoes() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("editor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let editor = ExternalEditor(environment: ["EDITOR": "true", "TMPDIR": folder.path])
        let kept = try editor.edit("Words", name: "note", limit: 100)
        kept.keep()
        let gone = try editor.edit("Other words", name: "note", limit: 100)
        gone.discard()
        #expect(FileManager.default.fileExists(atPath: kept.file))
        #expect(!FileManager.default.fileExists(atPath: gone.file))
        #expect(kept.file.hasPrefix(folder.path + "/shelf-note-") && kept.file.hasSuffix(".txt"))
        let mode = try FileManager.default.attributesOfItem(atPath: kept.file)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
    }
}
