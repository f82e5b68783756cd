import Foundation

// MARK: - CSVReader

/// Reads CSV as spreadsheets and Goodreads write it (RFC 4180): fields separated by
/// commas, records by LF or CRLF; a field in double quotes may hold commas, newlines and
/// doubled quotes (`""`). A UTF-8 byte order mark before the first field is skipped.
///
/// Strict where being lenient would guess: an unclosed quote, a quote inside an
/// unquoted field, text after a closing quote, or bytes that are not UTF-8 make the file
/// malformed, and the error names the line where the record starts.
public struct CSVReader: Sendable {
    /// One record, with the line it starts on (1-based; a quoted field with newlines
    /// makes the next record start further down).
    public struct Record: Hashable, Sendable {
        public var line: Int
        public var fields: [String]
    }

    /// Why the bytes are not CSV.
    public struct Malformed: Error, Hashable, Sendable, CustomStringConvertible {
        public var line: Int
        public var reason: String
        public var description: String { "line \(line): \(reason)" }

        public init(line: Int, reason: String) {
            self.line = line
            self.reason = reason
        }
    }

    /// The most fields one record may have; a file past it is not a library export.
    public static let maximumFields = 4096

    /// Parses every record. Empty lines between records are skipped.
    /// - Throws: `Malformed` naming the first bad line.
    public static func records(_ data: Data) throws(Malformed) -> [Record] {
        var records: [Record] = []
        let result: Malformed? = data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var index = 0
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
            var line = 1
            let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","), newline = UInt8(ascii: "\n"), cr = UInt8(ascii: "\r")

            while index < bytes.count {
                let startLine = line
                var fields: [String] = []
                // Skip an empty line.
                if bytes[index] == newline { index += 1; line += 1; continue }
                if bytes[index] == cr, index + 1 < bytes.count, bytes[index + 1] == newline { index += 2; line += 1; continue }
                recordLoop: while true {
                    var field: [UInt8] = []
                    if index < bytes.count, bytes[index] == quote {
                        index += 1
                        while true {
                            guard index < bytes.count else {
                                return Malformed(line: startLine, reason: "a quoted field is not closed")
                            }
                            let byte = bytes[index]
                            if byte == quote {
                                if index + 1 < bytes.count, bytes[index + 1] == quote {
                                    field.append(quote)
                                    index += 2
                                    continue
                                }
                                index += 1
                                break
                            }
                            if byte == newline { line += 1 }
                            field.append(byte)
                            index += 1
                        }
                        // After a closing quote: a separator, the end of the record, or the end.
                        if index < bytes.count, bytes[index] != comma, bytes[index] != newline,
                           !(bytes[index] == cr && index + 1 < bytes.count && bytes[index + 1] == newline) {
                            // NB: a quote left open usually shows only lines later, where the next
                            // quote closes it; the record it broke starts here.
                            return Malformed(line: startLine, reason: line == startLine
                                ? "text after a closing quote (a quote inside a quoted field must be doubled)"
                                : "a quoted field that starts here is not closed (it runs on to line \(line))")
                        }
                    } else {
                        while index < bytes.count, bytes[index] != comma, bytes[index] != newline {
                            if bytes[index] == cr, index + 1 < bytes.count, bytes[index + 1] == newline { break }
                            if bytes[index] == quote {
                                return Malformed(line: startLine, reason: "a quote inside an unquoted field (quote the whole field)")
                            }
                            field.append(bytes[index])
                            index += 1
                        }
                    }
                    guard let text = String(validating: field, as: UTF8.self) else {
                        return Malformed(line: startLine, reason: "not UTF-8 text")
                    }
                    fields.append(text)
                    guard fields.count <= maximumFields else {
                        return Malformed(line: startLine, reason: "more than \(maximumFields) fields")
                    }
                    guard index < bytes.count else { break recordLoop }
                    switch bytes[index] {
                    case comma:
                        index += 1
                        if index == bytes.count { fields.append(""); break recordLoop }
                    case newline:
                        index += 1; line += 1; break recordLoop
                    default:  // CR LF
                        index += 2; line += 1; break recordLoop
                    }
                }
                records.append(Record(line: startLine, fields: fields))
            }
            return nil
        }
        if let result { throw result }
        return records
    }

    // MARK: Writing

    /// One record as a CSV line (with CRLF, as RFC 4180 and spreadsheets expect): a field
    /// is quoted when it holds a comma, a quote or a line break.
    public static func line(_ fields: [String]) -> String {
        var bytes: [UInt8] = []
        for (index, field) in fields.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            append(field: field.utf8, to: &bytes)
        }
        bytes.append(contentsOf: [0x0D, 0x0A])
        return String(decoding: bytes, as: UTF8.self)
    }

    /// One field as `line(_:)` writes it, appended to `bytes` without building strings
    /// (an export writes one line per record).
    public static func append(field: some Collection<UInt8>, to bytes: inout [UInt8]) {
        let quote = UInt8(ascii: "\"")
        let needsQuotes = field.contains { $0 == UInt8(ascii: ",") || $0 == quote || $0 == 0x0A || $0 == 0x0D }
        guard needsQuotes else { bytes.append(contentsOf: field); return }
        bytes.append(quote)
        for byte in field {
            bytes.append(byte)
            if byte == quote { bytes.append(quote) }
        }
        bytes.append(quote)
    }
}
