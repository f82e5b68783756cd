import Domain
import Foundation

// MARK: - ConflictEditForm

/// The text `shelf resolve ID --edit` opens in `$VISUAL` / `$EDITOR`: one `field: value`
/// line per clashing field, filled in with this device's value, the three versions
/// below it as comments. The reader writes the value to keep on each line and saves.
///
/// ```
/// title: "The Dispossessed"
/// #   base:   "Dispossessed"
/// #   local:  "The Dispossessed"
/// #   server: "The Dispossessed: An Ambiguous Utopia"
/// ```
///
/// Values are read as `--set` reads them (`FieldValueText`): JSON as written here, or
/// plain text for a text field; spaces around a value are dropped (quote to keep them).
/// Lines starting with `#` and blank lines are ignored. A form saved unchanged, a line
/// for a field that does not clash, a field given twice or left out, or a line that is
/// not `field: value` is refused naming its line, and nothing changes. A form whose
/// values are all as they started counts as unchanged, whatever else was edited.
public struct ConflictEditForm: Hashable, Sendable {
    public let detail: ConflictDetail
    /// The form as written for the editor.
    public let text: String

    /// Each clashing field's value as the form starts (this device's value).
    private let prefilled: [String: String]

    public init(_ detail: ConflictDetail) {
        self.detail = detail
        var prefilled: [String: String] = [:]
        var lines: [String] = []
        let summary = detail.summary
        let label = summary.label.map { " \"\(TerminalEscaping.escaped($0))\"" } ?? ""
        lines.append("# Resolving the conflict on \(summary.collection.rawValue)/\(summary.recordID)\(label).")
        lines.append("# Write on each `field: value` line the value to keep; it starts as this device's.")
        lines.append("# Text may be written plainly or as a JSON string in double quotes; numbers, true,")
        lines.append("# false and null as in JSON. Lines starting with # are ignored.")
        lines.append("# Save the file unchanged (or empty it) to leave the conflict as it is.")
        let merged = detail.fields.filter { !$0.isClash }
        if !merged.isEmpty {
            let kept = merged.map { "\($0.name) (\($0.outcome == .local ? "local" : "server"))" }
            lines.append("# Changed on one side only, kept as merged: \(kept.joined(separator: ", ")).")
        }
        for field in detail.fields where field.isClash {
            lines.append("")
            let start = field.local.map(FieldValueText.written) ?? "null"
            prefilled[field.name] = start
            lines.append("\(field.name): \(start)")
            lines.append("#   base:   \(Self.shown(field.base))")
            lines.append("#   local:  \(Self.shown(field.local))")
            lines.append("#   server: \(Self.shown(field.server))")
        }
        text = lines.joined(separator: "\n") + "\n"
        self.prefilled = prefilled
    }

    /// The decisions an edited form holds.
    /// - Throws: `ConflictEditFormError` when it is unchanged or cannot be read.
    public func decisions(from edited: String) throws(ConflictEditFormError) -> ConflictDecisions {
        if edited == text { throw .unchanged }
        let clashing = detail.clashingFields
        var choices: [String: ConflictDecisions.Choice] = [:]
        var sawAnyLine = false
        for (index, raw) in edited.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            sawAnyLine = true
            let number = index + 1
            guard let colon = line.firstIndex(of: ":") else {
                throw .malformedLine(number, String(line))
            }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard clashing.contains(name) else { throw .notAClashingField(number, name, clashing: clashing) }
            guard choices[name] == nil else { throw .repeatedField(number, name) }
            choices[name] = .written(value)
        }
        if !sawAnyLine { throw .unchanged }
        let missing = clashing.filter { choices[$0] == nil }
        if !missing.isEmpty { throw .missingFields(missing) }
        // NB: every value as it started (whatever happened to the comments or the line
        // ends) is a form saved without a decision, not a choice of the local side.
        if clashing.allSatisfy({ choices[$0] == .written(prefilled[$0] ?? "") }) { throw .unchanged }
        return ConflictDecisions(others: nil, fields: choices)
    }

    private static func shown(_ value: JSONValue?) -> String {
        value.map(FieldValueText.written) ?? "(absent)"
    }
}

// MARK: - ConflictEditFormError

/// An edited form that cannot be used; the conflict stays as it was.
public enum ConflictEditFormError: Error, Hashable, Sendable, CustomStringConvertible {
    case unchanged
    case malformedLine(Int, String)
    case notAClashingField(Int, String, clashing: [String])
    case repeatedField(Int, String)
    case missingFields([String])

    public var description: String {
        switch self {
        case .unchanged:
            "the form was saved with no value changed (or emptied); the conflict is left as it was "
                + "('--keep local' keeps this device's values)"
        case .malformedLine(let line, let text):
            "line \(line) is not 'field: value': \(TerminalEscaping.escaped(String(text.prefix(80))))"
        case .notAClashingField(let line, let name, let clashing):
            "line \(line): '\(TerminalEscaping.escaped(name))' is not a clashing field (clashing: \(clashing.joined(separator: ", ")))"
        case .repeatedField(let line, let name):
            "line \(line): field '\(name)' is given twice"
        case .missingFields(let fields):
            "no line for \(fields.map { "'\($0)'" }.joined(separator: ", ")); keep one 'field: value' line per clashing field"
        }
    }
}
