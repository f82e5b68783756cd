// MARK: - PassphraseRule

/// Shelf's rule for a new encryption passphrase: at least 12 characters, at least 6 of
/// them different. Whoever copies the wrapped key from the server can guess passphrases
/// offline at Argon2id's cost per guess, so a short or repetitive one falls to a
/// dictionary however slow each guess is. Four common words ("correct horse battery
/// staple") pass; "hunter2", "aaaaaaaaaaaa" and "123412341234" do not.
///
/// `shelf encryption enable`, `change-passphrase` and `account add --encrypted` refuse a
/// passphrase below it (65) unless `--weak-passphrase-ok` says the reader knows; on a
/// terminal they say why either way. Joining takes the passphrase the account has.
public enum PassphraseRule {
    public static let minimumCharacters = 12
    public static let minimumDistinctCharacters = 6
    /// The rule in words, for help and errors.
    public static let statement = "at least \(minimumCharacters) characters, at least \(minimumDistinctCharacters) of them different"

    /// What in a passphrase's UTF-8 bytes falls short of the rule; empty when it holds.
    /// Bytes that are not UTF-8 count one character each.
    ///
    /// NB: reads the bytes in place, so a passphrase kept in secure memory is measured
    /// without a `String` copy; only the set of its distinct characters, at most
    /// `minimumDistinctCharacters` of them, is held while counting.
    public static func shortcomings(utf8 bytes: UnsafeRawBufferPointer) -> [String] {
        var characters = 0
        var distinct: Set<UInt32> = []
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        decoding: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                characters += 1
                if distinct.count < minimumDistinctCharacters { distinct.insert(scalar.value) }
            case .error:
                characters += 1
            case .emptyInput:
                break decoding
            }
        }
        var shortcomings: [String] = []
        if characters < minimumCharacters { shortcomings.append("it has \(characters) characters, fewer than \(minimumCharacters)") }
        if distinct.count < minimumDistinctCharacters {
            shortcomings.append("it uses \(distinct.count) different characters, fewer than \(minimumDistinctCharacters)")
        }
        return shortcomings
    }

    /// The same for text (tests, a passphrase typed at a prompt).
    public static func shortcomings(_ text: String) -> [String] {
        var text = text
        return text.withUTF8 { shortcomings(utf8: UnsafeRawBufferPointer($0)) }
    }
}
