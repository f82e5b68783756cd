import Foundation
import Records
import Vocabulary

// MARK: - RecordPageScanner

/// A Kinto list page's records, read by `RecordListScanner` (the byte scanner of the
/// sync engine's fast path), with the failures a response can have as `APIError`s.
public enum RecordPageScanner {
    /// The most records one page may hold: 10,000, Kinto's own ceiling
    /// (`storage_max_fetch_size`) and the largest `_limit` Shelf asks for. A page with
    /// more did not come from a server Shelf knows how to follow, and is refused
    /// before it is held in memory as records.
    public static let maximumRecordsPerPage = 10_000

    /// - Returns: the page's records in server order, tombstones included.
    /// - Throws: `APIError.decoding` for malformed JSON (with the byte offset), a missing
    ///   `data` array, a record without `id` or integer `last_modified`, an id that
    ///   occurs twice in the page, or more than `maximumRecords` records.
    /// - Parameter collection: the collection the page lists, when its records go to the
    ///   store: each then carries the members its store columns need
    ///   (`RawRecord.indexedFields`), read in the same pass as its bounds.
    public static func scan(
        _ body: Data, maximumRecords: Int = maximumRecordsPerPage, indexingFor collection: CollectionName? = nil
    ) throws(APIError) -> [RawRecord] {
        let records: [RawRecord]
        do throws(JSONScanError) {
            records = try RecordListScanner.records(in: body, maximumRecords: maximumRecords, indexingFor: collection)
        } catch {
            throw .decoding(error.decodingFailure)
        }
        try requireUniqueIDs(records)
        return records
    }

    /// A page that lists one id twice is refused: which version would be the record?
    ///
    /// NB: the check runs on a `Set<String>` first because Vocabulary's generic
    /// `requireUniqueIDs` is not specialised across modules and costs as much as the
    /// whole scan; that rule still decides, and names, the duplicates.
    static func requireUniqueIDs(_ records: [RawRecord]) throws(APIError) {
        var seen = Set<String>(minimumCapacity: records.count)
        guard records.contains(where: { !seen.insert($0.id).inserted }) else { return }
        do {
            _ = try records.requireUniqueIDs()
        } catch {
            throw .decoding(DecodingFailure(path: "data", message: "the page lists the same record more than once (\(error))", domainError: error))
        }
    }
}
