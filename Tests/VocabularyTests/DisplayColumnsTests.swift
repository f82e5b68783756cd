import Testing
import Vocabulary

/// Shelf's one width rule: the columns text takes, the start of text that fits, and the
/// width of the terminal with `COLUMNS` honoured when the terminal cannot say.
@Suite("Display columns")
struct DisplayColumnsTests {
    struct TextCase: Sendable, CustomTestStringConvertible {
        let name: String
        let text: String
        let columns: Int
        var testDescription: String { name }
    }

    static let texts: [TextCase] = [
        TextCase(name: "ASCII", text: "Dune", columns: 4),
        TextCase(name: "a letter with a combining accent", text: "e\u{301}te\u{301}", columns: 3),
        TextCase(name: "CJK", text: "三体", columns: 4),
        TextCase(name: "Hangul", text: "한국", columns: 4),
        TextCase(name: "emoji", text: "📚!", columns: 3),
        TextCase(name: "an emoji asked for in colour", text: "\u{2764}\u{FE0F}", columns: 2),
        TextCase(name: "a lone format character", text: "\u{200B}", columns: 0),
        TextCase(name: "empty", text: "", columns: 0),
    ]

    @Test(arguments: texts)
    func textIsCountedInColumns(_ item: TextCase) {
        #expect(DisplayColumns.of(item.text) == item.columns)
    }

    struct PrefixCase: Sendable, CustomTestStringConvertible {
        let text: String
        let columns: Int
        let expected: String
        var testDescription: String { "\(text) in \(columns)" }
    }

    /// A wide character is never cut in half: it goes whole or not at all.
    @Test(arguments: [
        PrefixCase(text: "Dune Messiah", columns: 4, expected: "Dune"),
        PrefixCase(text: "三体问题", columns: 5, expected: "三体"),
        PrefixCase(text: "三体", columns: 1, expected: ""),
        PrefixCase(text: "e\u{301}te\u{301}", columns: 2, expected: "e\u{301}t"),
        PrefixCase(text: "Dune", columns: 0, expected: ""),
        PrefixCase(text: "Dune", columns: 10, expected: "Dune"),
    ])
    func thePrefixThatFitsKeepsWholeCharacters(_ item: PrefixCase) {
        #expect(DisplayColumns.prefix(item.text, fitting: item.columns) == item.expected)
    }

    struct WidthCase: Sendable, CustomTestStringConvertible {
        let name: String
        let measured: Int?
        let columns: String?
        let fallback: Int?
        let expected: Int?
        var testDescription: String { name }
    }

    static let widths: [WidthCase] = [
        WidthCase(name: "the terminal's own width wins", measured: 120, columns: "60", fallback: 80, expected: 120),
        WidthCase(name: "COLUMNS when the terminal cannot say", measured: nil, columns: "60", fallback: 80, expected: 60),
        WidthCase(name: "COLUMNS when the terminal says 0", measured: 0, columns: "60", fallback: 80, expected: 60),
        WidthCase(name: "COLUMNS with spaces", measured: nil, columns: " 72 ", fallback: 80, expected: 72),
        WidthCase(name: "COLUMNS that is not a number", measured: nil, columns: "wide", fallback: 80, expected: 80),
        WidthCase(name: "COLUMNS of 0", measured: nil, columns: "0", fallback: 80, expected: 80),
        WidthCase(name: "COLUMNS past 10,000", measured: nil, columns: "10001", fallback: 80, expected: 80),
        WidthCase(name: "nothing on a terminal", measured: nil, columns: nil, fallback: 80, expected: 80),
        WidthCase(name: "nothing off a terminal: no limit", measured: nil, columns: nil, fallback: nil, expected: nil),
        WidthCase(name: "COLUMNS off a terminal", measured: nil, columns: "100", fallback: nil, expected: 100),
    ]

    @Test(arguments: widths)
    func theTerminalWidthHonoursCOLUMNS(_ item: WidthCase) {
        let environment = item.columns.map { ["COLUMNS": $0] } ?? [:]
        #expect(DisplayColumns.terminalWidth(measured: item.measured, environment: environment, fallback: item.fallback) == item.expected)
    }
}
