import Foundation
import Terminal
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A session on the slave side of a pseudo-terminal: raw mode, the screen sequences, input,
/// and the settings put back exactly on every way out.
@Suite("Pseudo-terminal")
struct PseudoTerminalTests {
    func configuration(_ pty: PseudoTerminal, term: String? = "xterm-256color") -> TerminalSession.Configuration {
        TerminalSession.Configuration(
            input: pty.slave, output: pty.slave, environment: term.map { ["TERM": $0] } ?? [:], handlesSignals: false)
    }

    /// The next `count` events, or what came before a deadline of seconds (a bound, not a gate).
    func events(_ session: TerminalSession, _ count: Int) async -> [TerminalEvent] {
        await withTaskGroup(of: [TerminalEvent]?.self) { group in
            group.addTask {
                var taken: [TerminalEvent] = []
                for await event in session.events {
                    taken.append(event)
                    if taken.count == count { break }
                }
                return taken
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(10))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? []
        }
    }

    // MARK: Raw mode

    @Test func rawModeIsRawAndRestoresTheSettingsExactly() throws {
        let pty = try PseudoTerminal()
        let saved = try pty.settings()
        let mode = try RawMode.enter(on: pty.slave)
        let raw = try RawMode.settings(of: pty.slave)
        #expect(raw.c_lflag & tcflag_t(ICANON | ECHO | ISIG | IEXTEN) == 0)
        #expect(raw.c_iflag & tcflag_t(ICRNL | IXON) == 0)
        #expect(raw.c_oflag & tcflag_t(OPOST) == 0)
        #expect(try pty.settings() != saved)
        try mode.restore()
        #expect(try pty.settings() == saved)
    }

    @Test func aSessionRestoresTheTerminalWhenItsBodyThrows() async throws {
        struct Refused: Error {}
        let pty = try PseudoTerminal()
        let saved = try pty.settings()
        await #expect(throws: Refused.self) {
            try await TerminalSession.run(configuration(pty)) { session in
                #expect(try pty.settings() != saved)
                session.draw(Frame(size: session.size))
                throw Refused()
            }
        }
        #expect(try pty.settings() == saved)
        let written = pty.output()
        #expect(written.hasPrefix("\u{1B}[?1049h\u{1B}[?25l\u{1B}[?2004h"))
        #expect(written.hasSuffix("\u{1B}[?2004l\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"))
    }

    @Test func aSessionRestoresTheTerminalWhenItsBodyReturns() async throws {
        let pty = try PseudoTerminal(rows: 30, columns: 100)
        let saved = try pty.settings()
        let size = try await TerminalSession.run(configuration(pty)) { session in
            var frame = Frame(size: session.size)
            frame.write("本棚 Shelf", row: 2, column: 4)
            session.draw(frame)
            return session.size
        }
        #expect(size == TerminalSize(rows: 30, columns: 100))
        #expect(try pty.settings() == saved)
        #expect(pty.output().contains("\u{1B}[3;5H本棚 Shelf"))
    }

    // MARK: Input

    @Test func keysAndPastesArriveAsEvents() async throws {
        let pty = try PseudoTerminal()
        let session = try TerminalSession.open(configuration(pty))
        defer { session.close() }
        pty.type(Array("\u{1B}[Aq本\u{1B}[200~a\rb\u{1B}[201~\u{03}".utf8))
        #expect(await events(session, 5) == [
            .key(.up), .key(.character("q")), .key(.character("本")), .paste("a\nb"), .key(.control("c")),
        ])
        pty.type([0x1B])
        #expect(await events(session, 1) == [.key(.escape)])
    }

    @Test func cancellingTheEventStreamRestoresTheTerminal() async throws {
        let pty = try PseudoTerminal()
        let saved = try pty.settings()
        let session = try TerminalSession.open(configuration(pty))
        let consumer = Task {
            for await _ in session.events {}
        }
        consumer.cancel()
        await consumer.value
        #expect(try pty.settings() == saved)
        session.draw(Frame(size: session.size))
        #expect(!pty.output().hasSuffix("\u{1B}[2J"))
    }

    // MARK: Handing over

    /// An editor run meanwhile gets the terminal as it was and every key typed for it; then
    /// the session is raw again, the last frame redrawn whole, and keys are events again.
    @Test func handingOverRestoresTheTerminalLeavesItsInputAndTakesItBack() async throws {
        let pty = try PseudoTerminal()
        let saved = try pty.settings()
        let session = try TerminalSession.open(configuration(pty))
        defer { session.close() }
        var frame = Frame(size: session.size)
        frame.write("the last frame", row: 1, column: 2)
        session.draw(frame)
        _ = pty.output()

        let handed = try session.handOver { () throws -> [UInt8] in
            #expect(try pty.settings() == saved)
            pty.type(Array("typed for the editor\n".utf8))
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = buffer.withUnsafeMutableBytes { Glibc.read(pty.slave, $0.baseAddress, $0.count) }
            return Array(buffer.prefix(max(0, count)))
        }

        #expect(String(decoding: handed, as: UTF8.self) == "typed for the editor\n")
        #expect(try pty.settings() != saved)
        let output = pty.output()
        #expect(output.hasPrefix("\u{1B}[?2004l\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"))
        #expect(output.contains("\u{1B}[?1049h") && output.contains("the last frame"))
        pty.type(Array("q".utf8))
        #expect(await events(session, 2) == [.redrawRequested, .key(.character("q"))])
    }

    @Test func theEndOfInputEndsTheSessionAsAHangup() async throws {
        let pty = try PseudoTerminal()
        let session = try TerminalSession.open(configuration(pty))
        pty.closeMaster()
        #expect(await events(session, 1) == [.terminate(.hangup)])
    }

    // MARK: Refusals

    @Test func aPipeOrADumbTerminalIsRefusedWithAReason() throws {
        let pty = try PseudoTerminal()
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        var piped = configuration(pty)
        piped.input = ends[0]
        #expect {
            try TerminalSession.open(piped)
        } throws: { ($0 as? TerminalError)?.code == .notATerminal }
        piped = configuration(pty)
        piped.output = ends[1]
        #expect {
            try TerminalSession.open(piped)
        } throws: { ($0 as? TerminalError)?.message.hasPrefix("standard output is not a terminal") == true }
        for term in ["dumb", nil, ""] {
            #expect {
                try TerminalSession.open(configuration(pty, term: term))
            } throws: { ($0 as? TerminalError)?.code == .unsupportedTerminal }
        }
    }
}
