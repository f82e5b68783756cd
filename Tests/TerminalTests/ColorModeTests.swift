import Terminal
import Testing

/// Colour by the CLI's own rule, and a monochrome that stays readable.
@Suite("Colour mode")
struct ColorModeTests {
    func mode(_ choice: ColorChoice, _ environment: [String: String]) -> ColorMode {
        ColorMode(choice, policy: OutputPolicy(isTerminal: true, terminalColumns: nil, terminalRows: nil, environment: environment))
    }

    @Test func autoHonoursNoColor() {
        #expect(mode(.auto, ["TERM": "xterm"]) == .color)
        #expect(mode(.auto, ["TERM": "xterm", "NO_COLOR": "1"]) == .monochrome)
        #expect(mode(.auto, ["TERM": "xterm", "NO_COLOR": ""]) == .color)
    }

    @Test func theCommandLineWins() {
        #expect(mode(.always, ["TERM": "xterm", "NO_COLOR": "1"]) == .color)
        #expect(mode(.never, ["TERM": "xterm"]) == .monochrome)
    }

    @Test func monochromeKeepsEmphasisWithoutColour() {
        let mono = ColorMode.monochrome
        #expect(mono.rendered(Style(background: .blue)) == .reversed)
        #expect(mono.rendered(Style(foreground: .red)) == .bold)
        #expect(mono.rendered(Style(background: .blue, reversed: true)) == .reversed)
        #expect(mono.rendered(.dim) == .plain)
        #expect(mono.rendered(Style(underlined: true)) == .underlined)
        let colourful = Style(foreground: .green, background: .black, dim: true)
        #expect(ColorMode.color.rendered(colourful) == colourful)
    }
}
