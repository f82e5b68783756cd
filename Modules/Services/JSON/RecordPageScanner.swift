import Domain
import Foundation

// MARK: - RecordPageScanner

/// Reads a Kinto list page (`{"data": [ {record}, … ]}`) into `RawRecord`s without a
/// `JSONDecoder`: one pass over the bytes, validating all of them, keeping per record
/// only `id`, `last_modified`, `deleted` and the record's own bytes.
///
/// This is the sync engine's fast path (DESIGN.md §3, "Decoding speed"): Foundation's
/// decoder reads ~30 MB/s on Linux; this scanner read ~290 MB/s of the same kind of page
/// here (`Benchmarks/transport-vs-curl.sh` prints both).
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
    public static func scan(_ body: Data, maximumRecords: Int = maximumRecordsPerPage) throws(APIError) -> [RawRecord] {
        let records: [RawRecord]
        do throws(JSONScanError) {
            records = try JSONByteScanner.withScanner(over: body) { (scanner) throws(JSONScanError) in
                var records: [RawRecord] = []
                var sawData = false
                try scanner.forEachMember { key, scanner throws(JSONScanError) in
                    guard scanner.key(key, is: "data") else {
                        try scanner.skipValue()
                        return
                    }
                    sawData = true
                    try scanner.forEachElement { scanner throws(JSONScanError) in
                        guard records.count < maximumRecords else {
                            throw JSONScanError(offset: scanner.offset, message: "the page holds more than \(maximumRecords) records, the most Shelf accepts in one page")
                        }
                        records.append(try scanner.scanRecord())
                    }
                }
                try scanner.expectEnd()
                guard sawData else { throw JSONScanError(offset: 0, message: "the page has no \"data\" array") }
                return records
            }
        } catch {
            throw .decoding(error.decodingFailure)
        }
        try requireUniqueIDs(records)
        return records
    }

    /// A page that lists one id twice is refused: which version would be the record?
    ///
    /// NB: the check runs on a `Set<String>` first because the Domain's generic
    /// `requireUniqueIDs` is not specialised across modules and costs as much as the
    /// whole scan; the Domain rule still decides, and names, the duplicates.
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
