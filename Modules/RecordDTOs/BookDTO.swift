import Domain
import Foundation
import Records

// MARK: - BookDTO

/// `books` record: `{id, title, author_name, finished, last_modified}`.
public struct BookDTO: WritableRecordDTO, Hashable {
    public static let collection = CollectionName.books

    public var id: String
    public var title: String
    public var authorName: String
    public var finished: Bool
    public var lastModified: Int?

    typealias CodingKeys = BookFields

    public init(id: String, title: String, authorName: String, finished: Bool, lastModified: Int? = nil) {
        self.id = id
        self.title = title
        self.authorName = authorName
        self.finished = finished
        self.lastModified = lastModified
    }

    public init(_ book: Book) {
        self.init(id: book.id, title: book.title, authorName: book.author, finished: book.isFinished)
    }

    public func toDomain() throws(DomainError) -> Book {
        try Book(id: id, title: title, author: authorName, isFinished: finished)
    }
}

// MARK: - Scanning

extension BookDTO {
    /// The members a book is made of, in the order `scanned(from:)` reads them.
    private static let scannedNames = [CodingKeys.id, .title, .authorName, .finished, .lastModified]
        .map { WireFields.Name($0.stringValue) }

    /// The book read by `JSONByteScanner`; nil leaves the record to `JSONDecoder`.
    public static func scanned(from json: Data) -> BookDTO? {
        guard let members = ScannedMembers(json, names: scannedNames),
              let id = members.string(0), let title = members.string(1), let authorName = members.string(2),
              let finished = members.bool(3), let lastModified = members.optionalInteger(4)
        else { return nil }
        return BookDTO(id: id, title: title, authorName: authorName, finished: finished, lastModified: lastModified)
    }
}
