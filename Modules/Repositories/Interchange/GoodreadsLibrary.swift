import Domain
import Foundation
import Records

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
public enum GoodreadsLibrary {
    static let requiredColumns = ["Book Id", "Title", "Author", "Exclusive Shelf"]
    /// Stands in for an empty Author (Shelf's books need one); each use is reported.
    public static let unknownAuthor = "Unknown author"

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
            var author = value("Author")
            if author.isEmpty {
                author = unknownAuthor
                plan.issues.append(ImportIssue(location: location, reason: "no author: imported as '\(unknownAuthor)'", imported: true))
            }
            let bookID = "gr-" + sourceID
            let finished = value("Exclusive Shelf").lowercased() == "read"
            do {
                var fields = try WireFieldsEncoding.fields(BookDTO(id: bookID, title: title, authorName: author, finished: finished))
                for (name, key) in [("ISBN", "isbn"), ("ISBN13", "isbn13")] {
                    let isbn = excelText(value(name))
                    if !isbn.isEmpty { fields[key] = .string(isbn) }
                }
                plan.items.append(ImportItem(collection: .books, id: bookID, fields: fields, location: location))
                let review = reviewText(column["My Review"].map { record.fields[$0] } ?? "")
                if !review.isEmpty {
                    let note = NoteDTO(id: bookID + "-review", bookID: bookID, title: "Review: \(title)", body: review)
                    plan.items.append(ImportItem(
                        collection: .notes, id: note.id, fields: try WireFieldsEncoding.fields(note), location: location))
                }
            } catch {
                plan.issues.append(ImportIssue(location: location, reason: "\(error)"))
            }
        }
        return plan
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
