import Domain
import Foundation
import PrivateFiles
import Records
import Storage

// MARK: - ShelfExport

/// Shelf's own export: every record of the chosen collections as the local store holds
/// it — changes not yet synced included, deletions waiting to be pushed left out — in
/// a shape `shelf import` reads back as it was.
///
/// JSON (the default), members in this order:
/// ```
/// {"format": "shelf-export", "version": 1, "exportedAt": "2026-12-01T09:30:00Z",
///  "collections": {"books": [{record}, …], "notes": […], …}}
/// ```
/// Each record is a collection's wire JSON (`{"id", "title", "author_name", "finished"}`
/// for a book, `{"id", "book_id", "title", "body"}` for a note, …; see the README),
/// with any field another client added, and `last_modified` and `_shelf_revs` when the
/// server has seen it (sync bookkeeping, ignored on import). Collections are listed in the store's order, records in their
/// listing order.
///
/// CSV: a header `collection,id,record` and one line per record, `record` holding the
/// same JSON object.
public enum ShelfExport {
    public static let formatMarker = "\"format\": \"shelf-export\""
    public static let formatName = "shelf-export"
    public static let version = 1
    public static let csvHeader = ["collection", "id", "record"]

    public typealias Format = ExportFormat
    public typealias Summary = ExportSummary

    /// The collections exported when none are named: every collection of the reader's
    /// own (the shared catalog only when asked for).
    public static let defaultCollections = CollectionName.writable

    /// Writes the export of `collections` from one consistent read of the store.
    public static func export(
        _ collections: [CollectionName], from store: ShelfStore, format: Format, exportedAt: Date = SyncClock.live.now()
    ) throws -> (data: Data, summary: Summary) {
        let records = try store.read { reader in
            try collections.map { collection in (collection, try reader.records(RecordQuery(collection))) }
        }
        var data = Data()
        var counts: [String: Int] = [:]
        for (collection, list) in records { counts[collection.rawValue] = list.count }
        switch format {
        case .json:
            data.reserveCapacity(records.reduce(256) { $0 + $1.1.reduce(0) { $0 + $1.json.count + 8 } })
            let stamp = exportedAt.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC") ?? .gmt))
            data.append(contentsOf: "{\n  \(formatMarker),\n  \"version\": \(version),\n  \"exportedAt\": \"\(stamp)\",\n  \"collections\": {".utf8)
            for (index, (collection, list)) in records.enumerated() {
                data.append(contentsOf: "\(index == 0 ? "" : ",")\n    \"\(collection.rawValue)\": [".utf8)
                for (position, record) in list.enumerated() {
                    data.append(contentsOf: (position == 0 ? "\n      " : ",\n      ").utf8)
                    data.append(record.json)
                }
                data.append(contentsOf: (list.isEmpty ? "]" : "\n    ]").utf8)
            }
            data.append(contentsOf: "\n  }\n}\n".utf8)
        case .csv:
            var bytes: [UInt8] = []
            bytes.reserveCapacity(records.reduce(64) { $0 + $1.1.reduce(0) { $0 + $1.json.count * 5 / 4 + 64 } })
            bytes.append(contentsOf: CSVReader.line(csvHeader).utf8)
            for (collection, list) in records {
                for record in list {
                    CSVReader.append(field: collection.rawValue.utf8, to: &bytes)
                    bytes.append(UInt8(ascii: ","))
                    CSVReader.append(field: record.id.utf8, to: &bytes)
                    bytes.append(UInt8(ascii: ","))
                    record.json.withUnsafeBytes { CSVReader.append(field: $0, to: &bytes) }
                    bytes.append(contentsOf: [0x0D, 0x0A])
                }
            }
            data = Data(bytes)
        }
        let total = counts.values.reduce(0, +)
        return (data, Summary(format: format, collections: counts, records: total, bytes: data.count))
    }

    // MARK: Writing a file

    /// Writes an export to `url` as a file only its owner can read (0600, like the store
    /// it comes from), replacing any file there only once the whole export is written.
    /// - Throws: `ExportError` naming the file and the system's reason.
    public static func write(_ data: Data, to url: URL) throws(ExportError) {
        do throws(PrivateFileError) {
            try PrivateFileWriter.write(data, to: url.standardizedFileURL.path)
        } catch {
            throw ExportError(file: url.path, errno: error.errno)
        }
    }

    /// An export file that could not be written.
    public struct ExportError: Error, Hashable, Sendable, CustomStringConvertible {
        public var file: String
        public var errno: Int32
        public var description: String { "cannot write \(file): \(String(cString: strerror(errno)))" }
    }

    // MARK: Reading back

    /// Why a Shelf export is not one; `location` names the line or record.
    public struct Malformed: Error, Hashable, Sendable, CustomStringConvertible {
        public var location: String?
        public var reason: String
        public var description: String { location.map { "\($0): \(reason)" } ?? reason }
    }

    /// The records of an export, JSON or CSV (told apart by the first byte).
    public static func plan(_ data: Data) throws(Malformed) -> ImportPlan {
        var body = data[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        let first = body.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }
        return first == UInt8(ascii: "{") ? try planJSON(Data(body)) : try planCSV(Data(body))
    }

    private static func planJSON(_ data: Data) throws(Malformed) -> ImportPlan {
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw Malformed(location: nil, reason: "not JSON (\(JSONErrorLocation.describe(error, in: data)))")
        }
        guard value["format"]?.stringValue == formatName else {
            throw Malformed(location: nil, reason: "not a Shelf export (no \"format\": \"\(formatName)\")")
        }
        guard let found = value["version"]?.intValue, found <= version else {
            throw Malformed(location: nil, reason: "export version \(value["version"]?.intValue.map(String.init) ?? "?") is not one this Shelf reads (\(version))")
        }
        guard let collections = value["collections"]?.objectValue else {
            throw Malformed(location: nil, reason: "no \"collections\" object")
        }
        var plan = ImportPlan(format: .shelf, rows: 0)
        var seen: Set<String> = []
        for name in collections.keys.sorted(by: { (CollectionName(rawValue: $0) ?? .products, $0) < (CollectionName(rawValue: $1) ?? .products, $1) }) {
            guard case .array(let records)? = collections[name] else {
                throw Malformed(location: name, reason: "not an array of records")
            }
            plan.rows += records.count
            for (index, record) in records.enumerated() {
                let location = "\(name)[\(index)]"
                guard let fields = record.objectValue else { throw Malformed(location: location, reason: "not a JSON object") }
                try add(fields, collectionName: name, id: fields["id"]?.stringValue, location: location, to: &plan, seen: &seen)
            }
        }
        return plan
    }

    private static func planCSV(_ data: Data) throws(Malformed) -> ImportPlan {
        let records: [CSVReader.Record]
        do {
            records = try CSVReader.records(data)
        } catch {
            throw Malformed(location: "line \(error.line)", reason: error.reason)
        }
        guard let header = records.first, header.fields == csvHeader else {
            throw Malformed(location: "line 1", reason: "not a Shelf export (the header must be \(csvHeader.joined(separator: ",")))")
        }
        var plan = ImportPlan(format: .shelf, rows: records.count - 1)
        var seen: Set<String> = []
        for record in records.dropFirst() {
            let location = "line \(record.line)"
            guard record.fields.count == 3 else {
                throw Malformed(location: location, reason: "\(record.fields.count) fields, the header has 3")
            }
            let fields: [String: JSONValue]
            do {
                fields = try WireJSON.fields(Data(record.fields[2].utf8))
            } catch .notAnObject {
                throw Malformed(location: location, reason: "the record is not a JSON object")
            } catch {
                throw Malformed(location: location, reason: "the record is not JSON")
            }
            guard fields["id"]?.stringValue == record.fields[1] else {
                throw Malformed(location: location, reason: "the record's id is not '\(record.fields[1])'")
            }
            try add(fields, collectionName: record.fields[0], id: record.fields[1], location: location, to: &plan, seen: &seen)
        }
        return plan
    }

    private static func add(
        _ fields: [String: JSONValue], collectionName: String, id: String?, location: String,
        to plan: inout ImportPlan, seen: inout Set<String>
    ) throws(Malformed) {
        guard let collection = CollectionName(rawValue: collectionName) else {
            plan.issues.append(ImportIssue(location: location, reason: "unknown collection '\(collectionName.prefix(64))'"))
            return
        }
        guard !collection.isReadOnly else {
            plan.issues.append(ImportIssue(location: location, reason: "\(collection.rawValue) is the shared catalog, which is read-only"))
            return
        }
        guard let id, (try? RecordID.validate(id)) != nil else {
            throw Malformed(location: location, reason: "no valid string 'id'")
        }
        guard seen.insert("\(collection.rawValue)/\(id)").inserted else {
            plan.issues.append(ImportIssue(location: location, reason: "\(collection.rawValue) record '\(id)' appears twice; the first was kept"))
            return
        }
        if collection == .notes, (try? NoteBodyRule.validate(fields[WireNames.noteBody]?.stringValue ?? "")) == nil {
            // NB: the rule every other way of writing a note follows (`NoteBodyRule`).
            plan.issues.append(ImportIssue(location: location, reason: "note '\(id)' has an empty body, which Shelf does not write"))
            return
        }
        // The server's and the sync engine's bookkeeping is not the reader's data: the
        // record gets its own when it is written here and synced.
        var content = fields
        for field in ["last_modified", "deleted"] + VersionFields.names { content.removeValue(forKey: field) }
        plan.items.append(ImportItem(collection: collection, id: id, fields: content, location: location))
    }
}
