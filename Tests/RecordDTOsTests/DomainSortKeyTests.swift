import Domain
import Foundation
import RecordDTOs
import Records
import Testing

@Suite("Sort keys of Domain values")
struct DomainSortKeyTests {
    /// One rule for both: a Domain value's key is the key of its record as stored.
    @Test func aDomainValueSortsByTheKeyOfItsStoredRecord() throws {
        func stored(_ collection: CollectionName, _ dto: some WritableRecordDTO) throws -> String {
            RecordIndexing(collection: collection, fields: try WireFields.parse(try dto.encodedData())).sortKey
        }
        let book = try Book(id: "b1", title: "L'Étranger", author: "Albert CAMUS")
        #expect(RecordIndexing.sortKey(of: book) == (try stored(.books, BookDTO(book))))
        let note = try Note(id: "n1", bookID: nil, title: "Café", body: String(repeating: "Ünï ", count: 40))
        #expect(RecordIndexing.sortKey(of: note) == (try stored(.notes, NoteDTO(note))))
        let task = try ReadingTask(id: "t1", title: "ÉCRIRE")
        #expect(RecordIndexing.sortKey(of: task) == (try stored(.tasks, ReadingTaskDTO(task))))
        let item = try CartItem(productID: "prod-2", quantity: 3)
        #expect(RecordIndexing.sortKey(of: item) == (try stored(.cart, CartItemDTO(item))))
    }
}
