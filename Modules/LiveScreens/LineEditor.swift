import Terminal

// MARK: - LineEditor

/// The one-line editor of the prompt line: a book's title or author, a note's title or a
/// short body. Keys follow the shell's habits (←/→, Home/End, Ctrl-A/E, Ctrl-U/K, Backspace
/// and Delete); Enter submits, Esc cancels. Bounded: it holds at most `maximumLength`
/// characters, so a paste of a whole file cannot grow it without end.
struct LineEditor: Equatable, Sendable {
    /// The most characters a line holds (a title allows far fewer; the model says so).
    static let maximumLength = 4_000

    /// What a key did.
    enum Answer: Equatable, Sendable {
        case editing
        case submitted(String)
        case cancelled
    }

    private(set) var characters: [Character]
    /// Where the next character goes, 0...characters.count.
    private(set) var cursor: Int

    init(_ text: String = "") {
        characters = Array(text.prefix(Self.maximumLength))
        cursor = characters.count
    }

    var text: String { String(characters) }

    // MARK: Keys

    mutating func apply(_ key: Key) -> Answer {
        switch key {
        case .enter: return .submitted(text)
        case .escape, .control("c"), .control("g"): return .cancelled
        case .character(let character): insert(String(character))
        case .backspace, .control("h"):
            if cursor > 0 {
                characters.remove(at: cursor - 1)
                cursor -= 1
            }
        case .delete, .control("d"):
            if cursor < characters.count { characters.remove(at: cursor) }
        case .left, .control("b"): cursor = max(0, cursor - 1)
        case .right, .control("f"): cursor = min(characters.count, cursor + 1)
        case .home, .control("a"): cursor = 0
        case .end, .control("e"): cursor = characters.count
        case .control("u"):
            characters.removeFirst(cursor)
            cursor = 0
        case .control("k"): characters.removeLast(characters.count - cursor)
        default: break
        }
        return .editing
    }

    /// Types `text` at the cursor (a paste: line breaks become spaces), up to the bound.
    mutating func insert(_ text: String) {
        let room = Self.maximumLength - characters.count
        let typed = text.map { $0.isNewline ? " " : $0 }.prefix(max(0, room))
        characters.insert(contentsOf: typed, at: cursor)
        cursor += typed.count
    }

    // MARK: Drawing

    /// The part of the line shown in `width` columns — from the start when the text up to
    /// the cursor fits, else scrolled so the cursor sits at the right edge — and the
    /// cursor's column within it (one column is kept for the cursor itself).
    func visible(in width: Int) -> (text: String, cursorColumn: Int) {
        let room = max(1, width - 1)
        var start = cursor
        var before = 0
        while start > 0 {
            let columns = DisplayWidthText.columns(String(characters[start - 1]))
            guard before + columns <= room else { break }
            before += columns
            start -= 1
        }
        var shown = String(characters[start..<cursor])
        var used = before
        for character in characters[cursor...] {
            let columns = DisplayWidthText.columns(String(character))
            guard used + columns <= room else { break }
            shown.append(character)
            used += columns
        }
        return (shown, before)
    }
}
