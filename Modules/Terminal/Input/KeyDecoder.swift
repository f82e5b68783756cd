import Foundation

// MARK: - KeyDecoder

/// Bytes from a terminal in raw mode, turned into keys and pastes. Pure: it never reads,
/// sleeps or looks at a clock, so every case is a table test.
///
/// A lone ESC and the start of a sequence begin with the same byte. The decoder holds an
/// ESC (or an unfinished sequence or UTF-8 character) until more bytes come or the caller
/// says none came in time (`idle()`): the reader chooses the wait (`InputReader`), tests
/// call `idle()` directly. Unknown sequences are skipped whole, so the keys after them are
/// kept. Every sequence and paste is bounded by `Limits`.
public struct KeyDecoder: Sendable {
    // MARK: Limits

    public struct Limits: Hashable, Sendable {
        /// The longest control sequence kept; a longer one is skipped to its final byte.
        public var sequenceBytes: Int
        /// The most text one paste carries; the rest, to the end marker, is dropped.
        public var pasteBytes: Int

        public init(sequenceBytes: Int = 32, pasteBytes: Int = 1 << 20) {
            self.sequenceBytes = max(4, sequenceBytes)
            self.pasteBytes = max(0, pasteBytes)
        }
    }

    // MARK: State

    private enum State: Sendable {
        case ground
        /// After ESC.
        case escape
        /// After `ESC [`: the parameter and intermediate bytes so far.
        case controlSequence([UInt8])
        /// After `ESC O`.
        case singleShift
        /// Inside a sequence longer than the limit: dropped up to its final byte.
        case skipping
        /// Inside a multi-byte UTF-8 character: the bytes so far and how many it takes.
        case utf8([UInt8], length: Int)
        /// Between the paste markers.
        case paste
    }

    private static let pasteEnd: [UInt8] = [0x1B, 0x5B, 0x32, 0x30, 0x31, 0x7E]  // ESC [ 2 0 1 ~

    public let limits: Limits
    private var state: State = .ground
    private var pasted: [UInt8] = []
    /// The last bytes seen in a paste, where its end marker is looked for once the paste
    /// is past its limit and no longer kept.
    private var pasteTail: [UInt8] = []

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Whether bytes are held that `idle()` would settle: an ESC, an unfinished sequence or
    /// character. The reader waits the short escape delay only then.
    public var isHoldingBytes: Bool {
        switch state {
        case .ground, .paste: false
        default: true
        }
    }

    /// Whether a bracketed paste is open: the reader then waits longer before `idle()`.
    public var isInPaste: Bool {
        if case .paste = state { return true }
        return false
    }

    // MARK: Decoding

    /// The keys and pastes `bytes` complete, in order.
    public mutating func decode(_ bytes: some Sequence<UInt8>) -> [TerminalInput] {
        var out: [TerminalInput] = []
        for byte in bytes { consume(byte, into: &out) }
        return out
    }

    /// No more bytes came within the caller's wait: a held ESC is the Escape key, an
    /// unfinished sequence is dropped (`ESC [` and `ESC O` alone are Escape and the
    /// letter), an unfinished character is U+FFFD, and an open paste ends with what it has.
    public mutating func idle() -> [TerminalInput] {
        var out: [TerminalInput] = []
        switch state {
        case .ground, .skipping:
            break
        case .escape:
            out.append(.key(.escape))
        case .controlSequence(let bytes) where bytes.isEmpty:
            out += [.key(.escape), .key(.character("["))]
        case .controlSequence:
            break
        case .singleShift:
            out += [.key(.escape), .key(.character("O"))]
        case .utf8:
            out.append(.key(.character("\u{FFFD}")))
        case .paste:
            out.append(finishPaste())
        }
        state = .ground
        return out
    }

    private mutating func consume(_ byte: UInt8, into out: inout [TerminalInput]) {
        switch state {
        case .ground:
            ground(byte, into: &out)
        case .escape:
            switch byte {
            case 0x5B: state = .controlSequence([])
            case 0x4F: state = .singleShift
            default:
                // NB: ESC then another key (Alt-x on most terminals) is Escape, then that
                // key: the byte is read again from the ground state.
                out.append(.key(.escape))
                state = .ground
                consume(byte, into: &out)
            }
        case .controlSequence(var bytes):
            controlSequence(byte, bytes: &bytes, into: &out)
        case .singleShift:
            state = .ground
            if let key = Self.singleShiftKeys[byte] {
                out.append(.key(key))
            } else if !(0x40...0x7E).contains(byte) {
                consume(byte, into: &out)  // not a final byte: not part of the sequence
            }
        case .skipping:
            if (0x20...0x3F).contains(byte) { return }
            state = .ground
            if !(0x40...0x7E).contains(byte) { consume(byte, into: &out) }
        case .utf8(var bytes, let length):
            guard (0x80...0xBF).contains(byte) else {
                out.append(.key(.character("\u{FFFD}")))
                state = .ground
                consume(byte, into: &out)
                return
            }
            bytes.append(byte)
            if bytes.count == length {
                state = .ground
                out.append(.key(.character(Character(String(decoding: bytes, as: UTF8.self)))))
            } else {
                state = .utf8(bytes, length: length)
            }
        case .paste:
            paste(byte, into: &out)
        }
    }

    // MARK: Single bytes

    private mutating func ground(_ byte: UInt8, into out: inout [TerminalInput]) {
        switch byte {
        case 0x1B: state = .escape
        case 0x0D, 0x0A: out.append(.key(.enter))
        case 0x09: out.append(.key(.tab))
        case 0x7F, 0x08: out.append(.key(.backspace))
        case 0x00: out.append(.key(.control("@")))
        case 0x01...0x1A: out.append(.key(.control(Character(Unicode.Scalar(byte + 0x60)))))
        case 0x1C...0x1F: out.append(.key(.control(Character(Unicode.Scalar(byte + 0x40)))))
        case 0x20...0x7E: out.append(.key(.character(Character(Unicode.Scalar(byte)))))
        case 0xC2...0xDF: state = .utf8([byte], length: 2)
        case 0xE0...0xEF: state = .utf8([byte], length: 3)
        case 0xF0...0xF4: state = .utf8([byte], length: 4)
        default: out.append(.key(.character("\u{FFFD}")))  // a stray continuation or invalid lead byte
        }
    }

    // MARK: Control sequences

    private mutating func controlSequence(_ byte: UInt8, bytes: inout [UInt8], into out: inout [TerminalInput]) {
        switch byte {
        case 0x20...0x3F:
            bytes.append(byte)
            state = bytes.count > limits.sequenceBytes ? .skipping : .controlSequence(bytes)
        case 0x40...0x7E:
            state = .ground
            finishControlSequence(parameters: bytes, final: byte, into: &out)
        default:
            // A control byte or ESC inside a sequence: the sequence was cut; drop it and
            // read the byte as the start of what follows.
            state = .ground
            consume(byte, into: &out)
        }
    }

    private mutating func finishControlSequence(parameters: [UInt8], final: UInt8, into out: inout [TerminalInput]) {
        if let key = Self.finalByteKeys[final] {
            out.append(.key(key))
            return
        }
        guard final == 0x7E else { return }  // unknown: skipped whole
        let first = parameters.split(separator: 0x3B, omittingEmptySubsequences: false).first ?? []
        guard let number = Int(String(decoding: first, as: UTF8.self)) else { return }
        if number == 200 {
            pasted = []
            pasteTail = []
            state = .paste
        } else if let key = Self.tildeKeys[number] {
            out.append(.key(key))
        }
    }

    /// `ESC [ <final>`, with or without modifier parameters.
    private static let finalByteKeys: [UInt8: Key] = [
        0x41: .up, 0x42: .down, 0x43: .right, 0x44: .left,
        0x48: .home, 0x46: .end, 0x5A: .backTab,
        0x50: .function(1), 0x51: .function(2), 0x52: .function(3), 0x53: .function(4),
    ]

    /// `ESC O <final>`.
    private static let singleShiftKeys: [UInt8: Key] = [
        0x41: .up, 0x42: .down, 0x43: .right, 0x44: .left,
        0x48: .home, 0x46: .end, 0x4D: .enter,
        0x50: .function(1), 0x51: .function(2), 0x52: .function(3), 0x53: .function(4),
    ]

    /// `ESC [ <n> ~` (VT220 keys; rxvt's and the Linux console's Home and End).
    private static let tildeKeys: [Int: Key] = [
        1: .home, 7: .home, 4: .end, 8: .end, 2: .insert, 3: .delete, 5: .pageUp, 6: .pageDown,
        11: .function(1), 12: .function(2), 13: .function(3), 14: .function(4), 15: .function(5),
        17: .function(6), 18: .function(7), 19: .function(8), 20: .function(9), 21: .function(10),
        23: .function(11), 24: .function(12),
    ]

    // MARK: Bracketed paste

    private mutating func paste(_ byte: UInt8, into out: inout [TerminalInput]) {
        pasteTail.append(byte)
        if pasteTail.count > Self.pasteEnd.count { pasteTail.removeFirst() }
        if pasted.count < limits.pasteBytes + Self.pasteEnd.count { pasted.append(byte) }
        guard pasteTail == Self.pasteEnd else { return }
        if pasted.count >= Self.pasteEnd.count, pasted.suffix(Self.pasteEnd.count).elementsEqual(Self.pasteEnd) {
            pasted.removeLast(Self.pasteEnd.count)
        }
        state = .ground
        out.append(finishPaste())
    }

    private mutating func finishPaste() -> TerminalInput {
        let kept = pasted.prefix(limits.pasteBytes)
        pasted = []
        pasteTail = []
        var text = String(decoding: kept, as: UTF8.self)
        if text.utf8.contains(0x0D) {
            text = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        }
        return .paste(text)
    }
}
