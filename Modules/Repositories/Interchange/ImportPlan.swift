import Domain
import Foundation
import RecordDTOs
import Records

// MARK: - Telling formats apart

extension ImportFormat {
    /// The format of `data`, judged from its first bytes and its header line:
    /// JSON with Shelf's `format` marker → shelf; a JSON array → calibre; CSV whose header
    /// has `Book Id` and `Exclusive Shelf` → goodreads; CSV `collection,id,record` → shelf.
    /// Nil when it is none of them.
    public static func guess(_ data: Data) -> ImportFormat? {
        var bytes = data.prefix(64 * 1024)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        let start = bytes.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        switch start.first {
        case UInt8(ascii: "["):
            return .calibre
        case UInt8(ascii: "{"):
            // NB: Shelf writes `format` first, so it is within the first bytes even of a
            // 100,000-book export; a copy rewritten by another tool may space it differently.
            return String(decoding: start, as: UTF8.self).contains("\"\(ShelfExport.formatName)\"") ? .shelf : nil
        default:
            let header = String(decoding: start.prefix { $0 != 0x0A }, as: UTF8.self)
            if header.contains("Book Id"), header.contains("Exclusive Shelf") { return .goodreads }
            if header.trimmingCharacters(in: .whitespacesAndNewlines) == ShelfExport.csvHeader.joined(separator: ",") {
                return .shelf
            }
            return nil
        }
    }
}

// MARK: - ImportItem

/// One record a file asks for, in the wire shape the store keeps, and where it came from.
public struct ImportItem: Hashable, Sendable {
    public var collection: CollectionName
    public var id: String
    /// The record's fields, without `last_modified` (the server's).
    public var fields: [String: JSONValue]
    /// Where in the file: "line 12", "entry 3", "books[4]".
    public var location: String
}

// MARK: - ImportPlan

/// What a parsed file asks for: the records to write, and the rows skipped or adjusted.
/// Building a plan writes nothing; a malformed file never gets one.
public struct ImportPlan: Sendable {
    public var format: ImportFormat
    /// Rows (CSV records after the header, JSON entries or records) the file holds.
    public var rows: Int
    public var items: [ImportItem]
    public var issues: [ImportIssue]
    /// The file's fields, kept or dropped, counted over the rows that became records.
    public var fields: [ImportField]

    public init(format: ImportFormat, rows: Int, items: [ImportItem] = [], issues: [ImportIssue] = [], fields: [ImportField] = []) {
        self.format = format
        self.rows = rows
        self.items = items
        self.issues = issues
        self.fields = fields
    }
}

// MARK: - ImportError

/// A file refused whole: nothing was written.
public struct ImportError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Hashable, Sendable {
        /// Not readable (missing, too large, a folder).
        case unreadable
        /// Its format could not be told, or it is not the format asked for.
        case unknownFormat
        /// It breaks its format; `description` names the first bad line or entry.
        case malformed
    }

    public var kind: Kind
    public var file: String
    public var reason: String

    public init(_ kind: Kind, file: String, reason: String) {
        self.kind = kind
        self.file = file
        self.reason = reason
    }

    public var description: String {
        switch kind {
        case .unreadable: "cannot read \(file): \(reason)"
        case .unknownFormat: "\(file): \(reason)"
        case .malformed: "\(file) is malformed, nothing was imported: \(reason)"
        }
    }
}

// MARK: - Wire helpers

enum WireFieldsEncoding {
    /// A DTO's fields as a dictionary, to add fields the DTO does not own.
    static func fields<DTO: WritableRecordDTO>(_ dto: DTO) throws -> [String: JSONValue] {
        let data = try dto.encodedData()
        return try WireJSON.fields(data)
    }

    /// The stored JSON of fields: keys sorted, slashes as they are.
    static func data(_ fields: [String: JSONValue]) throws -> Data {
        try WireJSON.data(fields)
    }
}
