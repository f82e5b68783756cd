import Foundation
import Terminal

// A frame that shows the terminal's size and the last key or paste, for TerminalTests to
// drive under tmux: `q` or Ctrl-C quits with 0, a signal ends it the conventional way.
// `--pid-file PATH` writes the process id there once the terminal is taken.

let arguments = CommandLine.arguments
let pidFile = arguments.firstIndex(of: "--pid-file").flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }

func frame(size: TerminalSize, last: String, count: Int) -> Frame {
    var frame = Frame(size: size)
    frame.fill(row: 0, style: Style(background: .blue))
    frame.write("Shelf terminal demo", row: 0, column: 1, style: Style(foreground: .white, background: .blue, bold: true))
    frame.write("wide: 本棚 📚 e\u{301}", row: 2, column: 1)
    frame.write("size: \(size.columns)x\(size.rows)", row: 3, column: 1)
    frame.write("last: \(last)", row: 4, column: 1, style: .bold)
    frame.write("events: \(count)", row: 5, column: 1, style: .dim)
    frame.write("q quits", row: size.rows - 1, column: 1, style: .reversed)
    return frame
}

var ending: TerminalSignal?
do {
    try await TerminalSession.run(.init(environment: ProcessInfo.processInfo.environment)) { session in
        if let pidFile { try "\(getpid())\n".write(toFile: pidFile, atomically: true, encoding: .utf8) }
        var size = session.size
        var last = "none"
        var count = 0
        session.draw(frame(size: size, last: last, count: count))
        loop: for await event in session.events {
            count += 1
            switch event {
            case .key(.character("q")), .key(.control("c")):
                break loop
            case .key(let key):
                last = "key \(key)"
            case .paste(let text):
                last = "paste \(text.debugDescription)"
            case .resize(let newSize):
                size = newSize
                last = "resize"
            case .redrawRequested:
                last = "redraw"
            case .terminate(let signal):
                ending = signal
                break loop
            }
            session.draw(frame(size: size, last: last, count: count))
        }
    }
} catch {
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(64)
}
ending?.reraise()
