import Foundation
import Vocabulary

// MARK: - RecordListScanner

/// Reads a Kinto list body (`{"data": [ {record}, … ]}`) into `RawRecord`s without a
/// `JSONDecoder`: one pass over the bytes, validating all of them, keeping per record
/// only `id`, `last_modified`, `deleted` and the record's own bytes.
///
/// This is the sync engine's fast path (ARCHITECTURE.md, code map, "Modules/Records"):
/// Foundation's decoder reads ~30 MB/s on Linux; this scanner read ~290 MB/s of the same
/// kind of page here (`Benchmarks/transport-vs-curl.sh` prints both).
public enum RecordListScanner {
    /// - Returns: the list's records in server order, tombstones included.
    /// - Throws: `JSONScanError` for malformed JSON (with the byte offset), a missing
    ///   `data` array, a record without `id` or integer `last_modified`, or more than
    ///   `maximumRecords` records.
    /// - Parameter collection: the collection the page lists; each record then carries
    ///   the members its store columns need (`RawRecord.indexedFields`), read in this pass.
    public static func records(
        in body: Data, maximumRecords: Int, indexingFor collection: CollectionName? = nil
    ) throws(JSONScanError) -> [RawRecord] {
        try JSONByteScanner.withScanner(over: body) { (scanner) throws(JSONScanError) in
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
                    records.append(try scanner.scanRecord(indexingFor: collection, slicing: body))
                }
            }
            try scanner.expectEnd()
            guard sawData else { throw JSONScanError(offset: 0, message: "the page has no \"data\" array") }
            return records
        }
    }
}
