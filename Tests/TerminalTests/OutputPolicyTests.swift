import Terminal
import Testing
import Vocabulary

/// The rules of colour, width and paging, from the facts the app gathers.
@Suite("Output policy: colour, width and the pager")
struct OutputPolicyTests {
    func policy(terminal: Bool, columns: Int? = nil, rows: Int? = nil, _ environment: [String: String] = [:]) -> OutputPolicy {
        OutputPolicy(isTerminal: terminal, terminalColumns: columns, terminalRows: rows, environment: environment)
    }

    // MARK: Colour

    @Test func autoColoursATerminalOnly() {
        #expect(policy(terminal: true).colors(.auto))
        #expect(!policy(terminal: false).colors(.auto))
    }

    @Test func autoHonoursTermDumbAndNoColor() {
        #expect(!policy(terminal: true, ["TERM": "dumb"]).colors(.auto))
        #expect(policy(terminal: true, ["TERM": "xterm-256color"]).colors(.auto))
        #expect(!policy(terminal: true, ["NO_COLOR": "1"]).colors(.auto))
        #expect(policy(terminal: true, ["NO_COLOR": ""]).colors(.auto), "an empty NO_COLOR is not set (no-color.org)")
    }

    @Test func alwaysAndNeverWinOverEverything() {
        #expect(policy(terminal: false, ["NO_COLOR": "1", "TERM": "dumb"]).colors(.always))
        #expect(!policy(terminal: true, ["TERM": "xterm"]).colors(.never))
    }

    // MARK: Width

    @Test func widthComesFromTheTerminalThenColumnsElseNoLimitOffATerminal() {
        #expect(policy(terminal: true, columns: 120, ["COLUMNS": "60"]).width == 120)
        #expect(policy(terminal: true, columns: 0, ["COLUMNS": "60"]).width == 60, "a size of 0 is no answer")
        #expect(policy(terminal: true).width == 80)
        #expect(policy(terminal: false, ["COLUMNS": "70"]).width == 70)
        #expect(policy(terminal: false).width == nil)
        for bad in ["", "abc", "0", "-5", "99999999999999999999"] {
            #expect(policy(terminal: false, ["COLUMNS": bad]).width == nil, "COLUMNS=\(bad)")
        }
    }

    // MARK: Pager

    @Test func thePagerRunsOnlyForTextLongerThanATerminal() {
        let terminal = policy(terminal: true, columns: 80, rows: 24)
        #expect(terminal.pager(lineCount: 25, format: .text, noPager: false) == "less -FRX")
        #expect(terminal.pager(lineCount: 24, format: .text, noPager: false) == nil, "it fits")
        #expect(terminal.pager(lineCount: 500, format: .json, noPager: false) == nil, "never JSON")
        #expect(terminal.pager(lineCount: 500, format: .text, noPager: true) == nil, "--no-pager")
        #expect(policy(terminal: false, rows: 24).pager(lineCount: 500, format: .text, noPager: false) == nil, "never a pipe")
        #expect(policy(terminal: true).pager(lineCount: 500, format: .text, noPager: false) == nil, "no height known")
        #expect(policy(terminal: true, ["LINES": "10"]).pager(lineCount: 11, format: .text, noPager: false) == "less -FRX")
    }

    @Test func pagerComesFromTheEnvironment() {
        func pager(_ value: String) -> String? {
            policy(terminal: true, rows: 5, ["PAGER": value]).pager(lineCount: 50, format: .text, noPager: false)
        }
        #expect(pager("more") == "more")
        #expect(pager("less -S") == "less -S")
        #expect(pager("") == nil)
        #expect(pager("cat") == nil)
    }
}
