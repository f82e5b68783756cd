// MARK: - RedactedDescription

/// Values that hold a secret describe themselves without it, whichever way they are
/// printed: `String(describing:)`, string interpolation, `debugPrint` and `dump` all go
/// through these three conformances, and each gives only `redactedSummary`.
public protocol RedactedDescription: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// What may be shown: a type name and public facts (a key id, a length), never bytes.
    var redactedSummary: String { get }
}

extension RedactedDescription {
    public var description: String { redactedSummary }
    public var debugDescription: String { redactedSummary }
    /// No children, so `dump` and debuggers never walk into the stored bytes.
    public var customMirror: Mirror { Mirror(self, children: [:], displayStyle: .struct) }
}
