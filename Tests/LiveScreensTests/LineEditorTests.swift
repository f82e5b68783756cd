@testable import LiveScreens
import Terminal
import Testing

// MARK: - LineEditor

@Suite("Prompt line")
struct LineEditorTests {
    @Test func keysEditAtTheCursorAsAShellDoes() {
        var editor = LineEditor("Dune")
        press(&editor, .left, .left, .backspace, .character("a"), .home, .character(">"), .end, .character("!"))
        #expect(editor.text == ">Dane!")
        press(&editor, .left, .control("k"))
        #expect(editor.text == ">Dane")
        press(&editor, .left, .left, .control("u"))
        #expect(editor.text == "ne")
        #expect(editor.apply(.enter) == .submitted("ne"))
        #expect(editor.apply(.escape) == .cancelled)
    }

    @Test func aPasteBecomesOneLineAndStopsAtTheBound() {
        var editor = LineEditor()
        editor.insert("two\nlines")
        #expect(editor.text == "two lines")
        editor.insert(String(repeating: "x", count: LineEditor.maximumLength * 2))
        #expect(editor.characters.count == LineEditor.maximumLength)
    }

    /// A line longer than the prompt scrolls so the cursor stays in view, by display
    /// width (a CJK character takes two columns).
    @Test func theVisiblePartFollowsTheCursor() {
        var editor = LineEditor("本棚本棚本棚")
        #expect(editor.visible(in: 7) == ("棚本棚", 6))
        press(&editor, .home)
        #expect(editor.visible(in: 7) == ("本棚本", 0))
    }

    private func press(_ editor: inout LineEditor, _ keys: Key...) {
        for key in keys { _ = editor.apply(key) }
    }
}
