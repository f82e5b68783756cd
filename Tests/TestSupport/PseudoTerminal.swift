import Foundation
#if canImport(Glibc)
import Glibc
#endif

// MARK: - PseudoTerminal

/// A pseudo-terminal pair (`posix_openpt`): the session takes the slave side, the test
/// types into and reads from the master side, as a terminal emulator would.
public final class PseudoTerminal {
    public private(set) var master: Int32
    public let slave: Int32

    public struct Failure: Error, CustomStringConvertible {
        public let call: String
        public let errorNumber: Int32
        public var description: String { "\(call): \(String(cString: strerror(errorNumber)))" }
    }

    // MARK: glibc's pseudo-terminal calls

    /// Found at run time: the Glibc module does not export them (they sit behind
    /// `_XOPEN_SOURCE`, as `wcwidth` does for `TerminalColumns`), though every glibc has them.
    private static func function<F>(_ name: String, as type: F.Type) throws -> F {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else {
            throw Failure(call: "dlsym \(name)", errorNumber: ENOSYS)
        }
        return unsafeBitCast(symbol, to: type)
    }

    public init(rows: UInt16 = 24, columns: UInt16 = 80) throws {
        typealias OpenPT = @convention(c) (Int32) -> Int32
        typealias OnMaster = @convention(c) (Int32) -> Int32
        typealias PTSName = @convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int32
        let posixOpenPT = try Self.function("posix_openpt", as: OpenPT.self)
        let grantPT = try Self.function("grantpt", as: OnMaster.self)
        let unlockPT = try Self.function("unlockpt", as: OnMaster.self)
        let ptsName = try Self.function("ptsname_r", as: PTSName.self)
        master = posixOpenPT(O_RDWR | O_NOCTTY)
        guard master >= 0 else { throw Failure(call: "posix_openpt", errorNumber: errno) }
        guard grantPT(master) == 0, unlockPT(master) == 0 else { throw Failure(call: "grantpt", errorNumber: errno) }
        var name = [CChar](repeating: 0, count: 128)
        guard ptsName(master, &name, name.count) == 0 else { throw Failure(call: "ptsname_r", errorNumber: errno) }
        let path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        slave = open(path, O_RDWR | O_NOCTTY)
        guard slave >= 0 else { throw Failure(call: "open", errorNumber: errno) }
        var size = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        close(slave)
        if master >= 0 { close(master) }
    }

    /// The terminal emulator goes away: the slave side reads end of input.
    public func closeMaster() {
        close(master)
        master = -1
    }

    /// Bytes as if typed.
    public func type(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// What the session has written so far (and not read before).
    public func output() -> String {
        String(decoding: outputBytes(), as: UTF8.self)
    }

    /// The same as bytes: a caller that reads while a program writes joins them before
    /// decoding, so no character is split between two reads.
    public func outputBytes() -> [UInt8] {
        var collected: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            collected += buffer.prefix(count)
        }
        return collected
    }
}
