import Domain
import Foundation
import RecordDTOs

// MARK: - GoodreadsLibrary

/// Goodreads' library export (`goodreads_library_export.csv`) as books and notes.
///
/// The columns Shelf reads, by header name (their order varies between exports):
/// `Book Id` (the stable source id), `Title`, `Author`, `ISBN` and `ISBN13` (written
/// Excel-style as `="0441013597"`), `Exclusive Shelf` (`read`, `currently-reading`,
/// `to-read`) and `My Review`. A book is finished when its exclusive shelf is `read`; a
/// non-empty review becomes a note on the book.
///
/// Ids are derived from the Book Id (`gr-<Book Id>`, its review `gr-<Book Id>-review`),
/// so importing the same export twice finds the same records instead of adding copies.
///
/// Every other column (`My Rating`, `Bookshelves`, `Date Read`, …) is dropped, and the
/// report counts, column by column, the imported rows that held a value in it
/// (`fieldRules`, `ImportField`).
public enum GoodreadsLibrary {
    static let requiredColumns = ["Book Id", "Title", "Author", "Exclusive Shelf"]

    /// - Throws: `CSVReader.Malformed` for bad CSV, a header without the columns above, or
    ///   a row whose number of fields differs from the header's.
    public static func plan(_ data: Data) throws(CSVReader.Malformed) -> ImportPlan {
        let records = try CSVReader.records(data)
        guard let header = records.first else { throw CSVReader.Malformed(line: 1, reason: "the file is empty") }
        var column: [String: Int] = [:]
        for (index, name) in header.fields.enumerated() where column[name.trimmingCharacters(in: .whitespaces)] == nil {
            column[name.trimmingCharacters(in: .whitespaces)] = index
        }
        for name in requiredColumns where column[name] == nil {
            throw CSVReader.Malformed(line: header.line, reason: "not a Goodreads library export: no '\(name)' column")
        }
        var plan = ImportPlan(format: .goodreads, rows: records.count - 1)
        var tally = ImportFieldTally(rules: fieldRules, unknown: .init(keptAs: nil, reason: "not a field Shelf keeps"))
        tally.declare(header.fields.map { $0.trimmingCharacters(in: .whitespaces) })
        var seen: [String: Int] = [:]
        for record in records.dropFirst() {
            guard record.fields.count == header.fields.count else {
                throw CSVReader.Malformed(
                    line: record.line,
                    reason: "\(record.fields.count) field\(record.fields.count == 1 ? "" : "s"), the header has \(header.fields.count)")
            }
            func value(_ name: String) -> String {
                column[name].map { record.fields[$0].trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
            }
            let location = "line \(record.line)"
            let sourceID = value("Book Id")
            guard !sourceID.isEmpty, sourceID.utf8.count <= 40, sourceID.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                plan.issues.append(ImportIssue(location: location, reason: "no numeric Book Id ('\(sourceID.prefix(40))')"))
                continue
            }
            if let first = seen[sourceID] {
                plan.issues.append(ImportIssue(location: location, reason: "the same Book Id \(sourceID) as line \(first)"))
                continue
            }
            seen[sourceID] = record.line
            let title = value("Title")
            guard !title.isEmpty else {
                plan.issues.append(ImportIssue(location: location, reason: "no title"))
                continue
            }
            let author = value("Author")
            let bookID = "gr-" + sourceID
            let finished = value("Exclusive Shelf").lowercased() == "read"
            do {
                var fields = try WireFieldsEncoding.fields(BookDTO(id: bookID, title: title, authorName: author, finished: finished))
                for (name, key) in [("ISBN", "isbn"), ("ISBN13", "isbn13")] {
                    let isbn = excelText(value(name))
                    if !isbn.isEmpty { fields[key] = .string(isbn) }
                }
                var items = [ImportItem(collection: .books, id: bookID, fields: fields, location: location)]
                let review = reviewText(column["My Review"].map { record.fields[$0] } ?? "")
                if !review.isEmpty {
                    let note = NoteDTO(id: bookID + "-review", bookID: bookID, title: "Review: \(title)", body: review)
                    items.append(ImportItem(
                        collection: .notes, id: note.id, fields: try WireFieldsEncoding.fields(note), location: location))
                }
                plan.items += items
                for (index, name) in header.fields.enumerated() {
                    tally.count(name.trimmingCharacters(in: .whitespaces), hasValue: holdsValue(record.fields[index], column: name))
                }
            } catch {
                plan.issues.append(ImportIssue(location: location, reason: "\(error)"))
            }
        }
        plan.fields = tally.fields
        return plan
    }

    // MARK: Fields kept and dropped

    /// What each column of a Goodreads export becomes. A column not named here is
    /// dropped as "not a field Shelf keeps".
    static let fieldRules: [String: ImportFieldTally.Rule] = [
        "Book Id": .init(keptAs: "id", reason: "as gr-<Book Id>, so a second import finds the same book"),
        "Title": .init(keptAs: "title"),
        "Author": .init(keptAs: "author"),
        "ISBN": .init(keptAs: "isbn", reason: "kept on the record and exported; not shown"),
        "ISBN13": .init(keptAs: "isbn13", reason: "kept on the record and exported; not shown"),
        "Exclusive Shelf": .init(keptAs: "finished", reason: "finished when 'read'; other shelves are not kept"),
        "My Review": .init(keptAs: "a note on the book", reason: "titled 'Review: <title>'"),
        "My Rating": .init(keptAs: nil, reason: "Shelf keeps no ratings"),
        "Average Rating": .init(keptAs: nil, reason: "Shelf keeps no ratings"),
        "Bookshelves": .init(keptAs: nil, reason: "Shelf has no shelves but finished or not"),
        "Bookshelves with positions": .init(keptAs: nil, reason: "Shelf has no shelves but finished or not"),
        "Date Read": .init(keptAs: nil, reason: "Shelf keeps no dates read"),
        "Date Added": .init(keptAs: nil, reason: "Shelf keeps no dates added"),
        "Read Count": .init(keptAs: nil, reason: "Shelf keeps whether a book is finished, not how often"),
        "Author l-f": .init(keptAs: nil, reason: "the author again, last name first"),
        "Additional Authors": .init(keptAs: nil, reason: "a book has one author line"),
        "Private Notes": .init(keptAs: nil, reason: "not imported as a note; copy it into 'shelf note add' to keep it"),
        "Spoiler": .init(keptAs: nil, reason: "Shelf keeps no spoiler mark"),
    ]

    /// Columns whose `0` means "none" (no rating given, never read, no copy owned).
    private static let zeroMeansNone: Set<String> = ["My Rating", "Read Count", "Owned Copies", "Average Rating"]

    /// Whether a cell holds data: not empty, not an empty Excel text (`=""`), and not
    /// the `0` of a column where it means none.
    static func holdsValue(_ raw: String, column: String) -> Bool {
        let text = excelText(raw.trimmingCharacters(in: .whitespacesAndNewlines))
        guard !text.isEmpty else { return false }
        if zeroMeansNone.contains(column.trimmingCharacters(in: .whitespaces)), Double(text) == 0 { return false }
        return true
    }

    /// `="0441013597"` → `0441013597`: Goodreads writes ISBNs as Excel formulas so that
    /// spreadsheets keep their leading zeros.
    static func excelText(_ raw: String) -> String {
        var text = raw
        if text.hasPrefix("=\"") && text.hasSuffix("\"") && text.count >= 3 {
            text = String(text.dropFirst(2).dropLast())
        }
        return text.trimmingCharacters(in: .whitespaces)
    }

    /// A review as text: Goodreads keeps line breaks as `<br/>`.
    static func reviewText(_ raw: String) -> String {
        var text = raw
        for tag in ["<br/>", "<br />", "<br>", "<BR/>", "<BR>"] {
            text = text.replacingOccurrences(of: tag, with: "\n")
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
