import Terminal
import Testing

/// Bytes as terminals send them, and the keys they are.
@Suite("Key decoding")
struct KeyDecoderTests {
    static let esc: UInt8 = 0x1B

    static let table: [(bytes: [UInt8], keys: [Key])] = [
        (Array("q".utf8), [.character("q")]),
        (Array("Ab ".utf8), [.character("A"), .character("b"), .character(" ")]),
        (Array("本棚".utf8), [.character("本"), .character("棚")]),
        (Array("📚".utf8), [.character("📚")]),
        (Array("é".utf8), [.character("é")]),
        ([0x0D], [.enter]), ([0x0A], [.enter]), ([0x09], [.tab]),
        ([0x7F], [.backspace]), ([0x08], [.backspace]),
        ([0x01], [.control("a")]), ([0x03], [.control("c")]), ([0x1A], [.control("z")]),
        ([0x00], [.control("@")]), ([0x1C], [.control("\\")]), ([0x1F], [.control("_")]),
        ([esc, 0x5B, 0x41], [.up]), ([esc, 0x5B, 0x42], [.down]),
        ([esc, 0x5B, 0x43], [.right]), ([esc, 0x5B, 0x44], [.left]),
        ([esc, 0x4F, 0x41], [.up]), ([esc, 0x4F, 0x44], [.left]),
        ([esc, 0x5B, 0x48], [.home]), ([esc, 0x5B, 0x46], [.end]),
        ([esc, 0x4F, 0x48], [.home]), ([esc, 0x4F, 0x46], [.end]),
        (Array("\u{1B}[1~".utf8), [.home]), (Array("\u{1B}[4~".utf8), [.end]),
        (Array("\u{1B}[7~".utf8), [.home]), (Array("\u{1B}[8~".utf8), [.end]),
        (Array("\u{1B}[5~".utf8), [.pageUp]), (Array("\u{1B}[6~".utf8), [.pageDown]),
        (Array("\u{1B}[2~".utf8), [.insert]), (Array("\u{1B}[3~".utf8), [.delete]),
        (Array("\u{1B}[Z".utf8), [.backTab]),
        (Array("\u{1B}[1;5A".utf8), [.up]),
        (Array("\u{1B}[3;2~".utf8), [.delete]),
        (Array("\u{1B}OP".utf8), [.function(1)]), (Array("\u{1B}[15~".utf8), [.function(5)]),
        (Array("\u{1B}[24~".utf8), [.function(12)]),
        (Array("\u{1B}OM".utf8), [.enter]),
    ]

    @Test func everyKeyOfTheTable() {
        for (bytes, keys) in Self.table {
            var decoder = KeyDecoder()
            #expect(decoder.decode(bytes) == keys.map(TerminalInput.key), "\(bytes)")
            #expect(!decoder.isHoldingBytes, "\(bytes)")
        }
    }

    @Test func keysSplitAcrossReadsAreJoined() {
        for (bytes, keys) in Self.table where bytes.count > 1 {
            var decoder = KeyDecoder()
            var decoded: [TerminalInput] = []
            for byte in bytes { decoded += decoder.decode([byte]) }
            #expect(decoded == keys.map(TerminalInput.key), "\(bytes)")
        }
    }

    // MARK: Escape

    @Test func aLoneEscapeWaitsUntilTheReaderSaysNoMoreCame() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([Self.esc]).isEmpty)
        #expect(decoder.isHoldingBytes)
        #expect(decoder.idle() == [.key(.escape)])
        #expect(!decoder.isHoldingBytes)
        #expect(decoder.idle().isEmpty)
    }

    @Test func escapeFollowedByAKeyIsEscapeThenTheKey() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([Self.esc, 0x78]) == [.key(.escape), .key(.character("x"))])
        #expect(decoder.decode([Self.esc, Self.esc]) == [.key(.escape)])
        #expect(decoder.idle() == [.key(.escape)])
    }

    @Test func anUnfinishedSequenceAtIdleIsSettled() {
        var decoder = KeyDecoder()
        #expect(decoder.decode(Array("\u{1B}[".utf8)).isEmpty)
        #expect(decoder.idle() == [.key(.escape), .key(.character("["))])
        #expect(decoder.decode(Array("\u{1B}O".utf8)).isEmpty)
        #expect(decoder.idle() == [.key(.escape), .key(.character("O"))])
        #expect(decoder.decode(Array("\u{1B}[1;".utf8)).isEmpty)
        #expect(decoder.idle().isEmpty)
        #expect(decoder.decode(Array("a".utf8)) == [.key(.character("a"))])
    }

    // MARK: Unknown and malformed

    @Test func unknownSequencesAreSkippedWithoutLosingTheKeysAfter() {
        var decoder = KeyDecoder()
        let bytes = Array("\u{1B}[?1;2c\u{1B}[99~\u{1B}[200;1x\u{1B}OXq\u{1B}[A".utf8)
        #expect(decoder.decode(bytes) == [.key(.character("q")), .key(.up)])
    }

    @Test func aSequenceCutByAnotherStartsOver() {
        var decoder = KeyDecoder()
        #expect(decoder.decode(Array("\u{1B}[1\u{1B}[B".utf8)) == [.key(.down)])
    }

    @Test func aRunawaySequenceIsCutAtTheLimit() {
        var decoder = KeyDecoder(limits: .init(sequenceBytes: 8))
        let runaway = [Self.esc, 0x5B] + Array(repeating: UInt8(0x31), count: 10_000) + [0x41]
        #expect(decoder.decode(runaway + Array("k".utf8)) == [.key(.character("k"))])
        #expect(!decoder.isHoldingBytes)
    }

    @Test func invalidUTF8BecomesTheReplacementCharacter() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0xFF, 0x61]) == [.key(.character("\u{FFFD}")), .key(.character("a"))])
        #expect(decoder.decode([0xE6, 0x61]) == [.key(.character("\u{FFFD}")), .key(.character("a"))])
        #expect(decoder.decode([0xE6, 0x9C]).isEmpty)
        #expect(decoder.idle() == [.key(.character("\u{FFFD}"))])
    }

    // MARK: Bracketed paste

    @Test func aBracketedPasteIsOneEvent() {
        var decoder = KeyDecoder()
        let bytes = Array("x\u{1B}[200~q 本\u{1B}[A\r\nline\u{1B}[201~y".utf8)
        #expect(decoder.decode(bytes) == [
            .key(.character("x")), .paste("q 本\u{1B}[A\nline"), .key(.character("y")),
        ])
    }

    @Test func aPasteSplitAcrossReadsIsJoined() {
        var decoder = KeyDecoder()
        var decoded: [TerminalInput] = []
        for byte in Array("\u{1B}[200~hello\u{1B}[201~".utf8) { decoded += decoder.decode([byte]) }
        #expect(decoded == [.paste("hello")])
    }

    @Test func aPasteIsCutAtTheLimitAndTheEndMarkerStillFound() {
        var decoder = KeyDecoder(limits: .init(pasteBytes: 4))
        let bytes = Array("\u{1B}[200~abcdefgh\u{1B}[201~z".utf8)
        #expect(decoder.decode(bytes) == [.paste("abcd"), .key(.character("z"))])
    }

    @Test func aPasteWithoutItsEndEndsWhenTheReaderGivesUp() {
        var decoder = KeyDecoder()
        #expect(decoder.decode(Array("\u{1B}[200~half".utf8)).isEmpty)
        #expect(decoder.isInPaste)
        #expect(decoder.idle() == [.paste("half")])
        #expect(decoder.decode(Array("q".utf8)) == [.key(.character("q"))])
    }
}
