import Domain
import Foundation
import RecordDTOs

// MARK: - CalibreLibrary

/// Calibre's `calibredb list --for-machine` JSON as books.
///
/// The output is an array of objects with the fields asked for (`--fields`); by default
/// `id`, `title` and `authors`, where `authors` is one string, several authors joined
/// with ` & ` — kept as it is, since a Shelf book has one author line. A `uuid` (with
/// `--fields uuid` or `all`) is the stable id of a book across libraries and is
/// preferred; otherwise the library's numeric `id`. Ids become `cal-<uuid or id>`, so
/// importing the same list twice adds nothing. A custom column `#read` that is true
/// marks the book finished. Every other key (`rating`, `tags`, `series`, …) is dropped,
/// and the report counts, key by key, the imported entries that held a value in it.
public enum CalibreLibrary {
    /// - Throws: `CSVReader.Malformed`-like `ImportError` reasons as `Malformed` (entry
    ///   numbers instead of lines) when the bytes are not a JSON array of objects.
    public static func plan(_ data: Data) throws(Malformed) -> ImportPlan {
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw Malformed(entry: nil, reason: "not JSON (\(JSONErrorLocation.describe(error, in: data)))")
        }
        guard case .array(let entries) = value else {
            throw Malformed(entry: nil, reason: "not the JSON array 'calibredb list --for-machine' prints")
        }
        var plan = ImportPlan(format: .calibre, rows: entries.count)
        var tally = ImportFieldTally(rules: fieldRules, unknown: .init(keptAs: nil, reason: "not a field Shelf keeps"))
        var seen: [String: Int] = [:]
        for (index, entry) in entries.enumerated() {
            let number = index + 1
            guard let object = entry.objectValue else { throw Malformed(entry: number, reason: "not a JSON object") }
            let location = "entry \(number)"
            let sourceID: String
            if let uuid = object["uuid"]?.stringValue, !uuid.isEmpty {
                sourceID = uuid.lowercased()
            } else if let id = object["id"]?.intValue {
                sourceID = String(id)
            } else {
                plan.issues.append(ImportIssue(location: location, reason: "no 'uuid' or numeric 'id'"))
                continue
            }
            let bookID = "cal-" + sourceID
            guard (try? RecordID.validate(bookID)) != nil else {
                plan.issues.append(ImportIssue(location: location, reason: "id '\(sourceID.prefix(64))' cannot be a record id"))
                continue
            }
            if let first = seen[bookID] {
                plan.issues.append(ImportIssue(location: location, reason: "the same id as entry \(first)"))
                continue
            }
            seen[bookID] = number
            let title = (object["title"]?.stringValue ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            guard !title.isEmpty else {
                plan.issues.append(ImportIssue(location: location, reason: "no title"))
                continue
            }
            let author = authors(object["authors"])
            let finished = object["#read"]?.boolValue ?? false
            do {
                var fields = try WireFieldsEncoding.fields(BookDTO(id: bookID, title: title, authorName: author, finished: finished))
                if let isbn = object["isbn"]?.stringValue, !isbn.isEmpty { fields["isbn"] = .string(isbn) }
                plan.items.append(ImportItem(collection: .books, id: bookID, fields: fields, location: location))
                for key in object.keys.sorted() {
                    // NB: a JSON object has no order to keep once decoded; the report lists keys by name.
                    tally.count(key, hasValue: holdsValue(object[key], key: key))
                }
            } catch {
                plan.issues.append(ImportIssue(location: location, reason: "\(error)"))
            }
        }
        plan.fields = tally.fields
        return plan
    }

    // MARK: Fields kept and dropped

    /// What each key of `calibredb list --for-machine` becomes. A key not named here
    /// (a custom column other than `#read`) is dropped as "not a field Shelf keeps".
    static let fieldRules: [String: ImportFieldTally.Rule] = [
        "uuid": .init(keptAs: "id", reason: "as cal-<uuid>, so a second import finds the same book"),
        "id": .init(keptAs: "id", reason: "as cal-<id> when there is no uuid"),
        "title": .init(keptAs: "title"),
        "authors": .init(keptAs: "author", reason: "several authors as one line, joined with ' & '"),
        "isbn": .init(keptAs: "isbn", reason: "kept on the record and exported; not shown"),
        "#read": .init(keptAs: "finished"),
        "rating": .init(keptAs: nil, reason: "Shelf keeps no ratings"),
        "tags": .init(keptAs: nil, reason: "Shelf keeps no tags"),
        "series": .init(keptAs: nil, reason: "Shelf keeps no series"),
        "series_index": .init(keptAs: nil, reason: "Shelf keeps no series"),
        "pubdate": .init(keptAs: nil, reason: "Shelf keeps no dates"),
        "timestamp": .init(keptAs: nil, reason: "Shelf keeps no dates"),
        "last_modified": .init(keptAs: nil, reason: "Shelf keeps no dates"),
        "comments": .init(keptAs: nil, reason: "not imported as a note"),
        "author_sort": .init(keptAs: nil, reason: "the authors again, sorted"),
    ]

    /// Whether a value is data: not null, not an empty string, list or object, and not
    /// a `rating` of 0 (unrated).
    static func holdsValue(_ value: JSONValue?, key: String) -> Bool {
        switch value {
        case nil, .null?: return false
        case .string(let text)?: return !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        case .array(let items)?: return !items.isEmpty
        case .object(let members)?: return !members.isEmpty
        case .number(let number)? where key == "rating": return number != 0
        default: return true
        }
    }

    /// `"A & B"` as it is; an array of names joined with ` & ` (some versions and tools).
    static func authors(_ value: JSONValue?) -> String {
        switch value {
        case .string(let text)?:
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        case .array(let names)?:
            return names.compactMap { $0.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines) }
                .filter { !$0.isEmpty }.joined(separator: " & ")
        default:
            return ""
        }
    }

    /// Why a Calibre list is not one; `entry` is 1-based, nil for the whole file.
    public struct Malformed: Error, Hashable, Sendable, CustomStringConvertible {
        public var entry: Int?
        public var reason: String
        public var description: String { entry.map { "entry \($0): \(reason)" } ?? reason }
    }
}

// MARK: - JSONErrorLocation

/// Where Foundation's JSON parser stopped, as a line number when it says.
enum JSONErrorLocation {
    static func describe(_ error: any Error, in data: Data) -> String {
        let nsError = error as NSError
        if let index = (nsError.userInfo["NSJSONSerializationErrorIndex"] as? Int)
            ?? ((nsError.userInfo[NSUnderlyingErrorKey] as? NSError)?.userInfo["NSJSONSerializationErrorIndex"] as? Int),
           index <= data.count {
            let line = data.prefix(index).reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
            return "line \(line)"
        }
        if case DecodingError.dataCorrupted(let context) = error {
            let detail = (context.underlyingError as NSError?)?.localizedDescription ?? context.debugDescription
            return detail
        }
        return "\(error)"
    }
}
