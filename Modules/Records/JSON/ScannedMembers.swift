import Foundation

// MARK: - ScannedMembers

/// The few top-level members a DTO is made of, read from one record's bytes by
/// `JSONByteScanner` — the reader behind RecordDTOs' `scanned(from:)`, which lists skip
/// `JSONDecoder` with.
///
/// It answers only where its reading is certainly the decoder's: the scanner validates
/// every byte (what it accepts, `JSONDecoder` accepts), and a member among `names` that
/// appears twice gives nil, since `JSONDecoder` keeps the first of repeated names where
/// `WireFields` keeps the last. A nil sends the record to `JSONDecoder`, whose error
/// names the field.
public struct ScannedMembers {
    /// One value per name asked for, in the order of the names; nil where absent.
    private var values: [WireFields.Value?]

    /// Reads `names` from `json`; nil when the bytes are not one valid JSON object or
    /// one of the names is repeated.
    public init?(_ json: Data, names: [WireFields.Name]) {
        var values = [WireFields.Value?](repeating: nil, count: names.count)
        let read: Bool? = try? JSONByteScanner.withScanner(over: json) { (scanner) throws(JSONScanError) -> Bool in
            var repeated = false
            try scanner.forEachMember { key, scanner throws(JSONScanError) in
                guard let index = scanner.index(of: key, in: names) else {
                    try scanner.skipValue()
                    return
                }
                if values[index] != nil { repeated = true }
                values[index] = try scanner.readWireValue()
            }
            try scanner.expectEnd()
            return !repeated
        }
        guard read == true else { return nil }
        self.values = values
    }

    /// A string member.
    public func string(_ index: Int) -> String? {
        if case .string(let text) = values[index] { return text }
        return nil
    }

    /// A `true` or `false` member (`JSONDecoder` reads nothing else as a `Bool`).
    public func bool(_ index: Int) -> Bool? {
        if case .bool(let flag) = values[index] { return flag }
        return nil
    }

    /// An optional integer member: `.some(nil)` when absent or null, `.some(n)` for an
    /// integer written without fraction or exponent; nil for anything else (`1e3` and
    /// `1.0` are integers to `JSONDecoder`, so they are left to it).
    public func optionalInteger(_ index: Int) -> Int?? {
        switch values[index] {
        case nil, .null?: .some(nil)
        case .integer(let number)?: Int(exactly: number).map { .some($0) }
        default: nil
        }
    }
}
