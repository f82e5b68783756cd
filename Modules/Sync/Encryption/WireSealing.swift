import Domain
import Encryption
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Records
import Storage

// MARK: - WireSealing

/// How the reader's records cross the wire in a run: in the clear, sealed with the keys
/// this device holds, or not at all (the account is encrypted and this device holds no
/// key).
///
/// This is the whole of end-to-end encryption inside the sync engine: the store keeps
/// plaintext, so the merge, its base snapshots, lineage, conflicts and acknowledged
/// deletions work as they always did; only the bytes that leave and arrive change. A
/// body is sealed as it is sent (`sealed(body:in:id:)`), and every record the server
/// hands back — pulled, reconciled, or carried by a 412 — is opened before anything
/// else looks at it (`opened(_:in:)`). The shop catalog is not the reader's and stays
/// in the clear (`seals`).
public enum WireSealing: Sendable {
    /// The account is not encrypted, as far as this device knows.
    case plaintext
    /// Sealed with `sealer`'s keyring. A plaintext record stamped after `enabledAt`
    /// (when encryption began) was written by something other than Shelf: refused.
    case sealed(RecordSealer, enabledAt: Int64?)
    /// The account is encrypted and this device holds no key: the reader's collections
    /// are neither pulled nor pushed, so nothing is written over them (`lockedReason`).
    case locked

    /// Whether `collection`'s records are sealed: every collection but the catalog.
    public static func seals(_ collection: CollectionName) -> Bool { !collection.isReadOnly }

    /// What the run says of a collection it leaves alone for want of a key.
    public static let lockedReason =
        "the account's records are encrypted and this device holds no key: run 'shelf encryption join'; its local changes wait"

    // MARK: - Sending

    /// The body of a create or update as it goes out: sealed when the account is.
    /// - Parameter body: the push body (`PushBody`): the record without server fields.
    public func sealed(body: Data, in collection: CollectionName, id: String) throws -> Data {
        guard case .sealed(let sealer, _) = self, Self.seals(collection) else { return body }
        var fields = try WireJSON.fields(body)
        fields["id"] = .string(id)
        var sealed = try sealer.seal(fields, in: collection.rawValue)
        ServerOwnedFields.removeAll(from: &sealed)
        return try WireJSON.data(sealed)
    }

    // MARK: - Receiving

    /// What opening records from the server gave.
    struct Opened {
        /// The records as the store keeps them: opened, or as they came (tombstones,
        /// the catalog, an account in the clear).
        var records: [RawRecord] = []
        /// Records not applied, with why: altered, moved, sealed with an unknown key, or
        /// plaintext where sealed records belong.
        var refused: [RefusedRecord] = []
        /// A sealed record arrived on a device that thought the account in the clear.
        var metSealedRecords = false
        /// Records accepted in the clear because they were written before encryption
        /// began: they are to be sealed again (`SyncRules.sealAgain`).
        var writtenBeforeEncryption: [String] = []
    }

    /// Opens `records` of `collection`.
    func opened(_ records: [RawRecord], in collection: CollectionName) -> Opened {
        guard Self.seals(collection) else { return Opened(records: records) }
        switch self {
        case .plaintext:
            guard records.contains(where: Self.looksSealed) else { return Opened(records: records) }
            return Opened(metSealedRecords: true)
        case .locked:
            return Opened(metSealedRecords: true)
        case .sealed(let sealer, let enabledAt):
            var opened = Opened()
            for record in records {
                switch Self.open(record, in: collection, sealer, enabledAt: enabledAt) {
                case .success(let plain):
                    opened.records.append(plain)
                    if !record.isDeleted, plain.json == record.json { opened.writtenBeforeEncryption.append(record.id) }
                case .failure(let refusal): opened.refused.append(refusal)
                }
            }
            return opened
        }
    }

    private static func open(
        _ record: RawRecord, in collection: CollectionName, _ sealer: RecordSealer, enabledAt: Int64?
    ) -> Result<RawRecord, RefusedRecord> {
        guard !record.isDeleted else { return .success(record) }
        let fields: [String: JSONValue]
        do {
            fields = try WireJSON.fields(record.json)
        } catch {
            return .failure(RefusedRecord(id: record.id, reason: "its JSON is \(error)"))
        }
        guard SealedRecord.isSealed(fields) else {
            if let enabledAt, record.lastModified <= enabledAt { return .success(record) }  // from before encryption began
            return .failure(RefusedRecord(id: record.id, reason: "a plaintext record in an encrypted collection"))
        }
        do {
            let plain = try sealer.open(fields, in: collection.rawValue)
            return .success(RawRecord(id: record.id, lastModified: record.lastModified, json: try WireJSON.data(plain)))
        } catch let error as EncryptionError {
            return .failure(RefusedRecord(id: record.id, reason: Self.reason(error)))
        } catch {
            return .failure(RefusedRecord(id: record.id, reason: "it does not open: \(error)"))
        }
    }

    /// A refusal in words a reader can act on.
    private static func reason(_ error: EncryptionError) -> String {
        switch error {
        case .tampered:
            return "its ciphertext does not verify (altered, or moved from another record or collection)"
        case .unknownKey(let id):
            return "sealed with key \(id), which this device does not hold (rotated on another device? run 'shelf encryption join')"
        default:
            return "\(error)"
        }
    }

    /// Whether a record's bytes carry the envelope, without decoding it: the plaintext
    /// path stays as fast as it was.
    static func looksSealed(_ record: RawRecord) -> Bool {
        !record.isDeleted && record.json.withUnsafeBytes { bytes in contains(SealedMarker.bytes, in: bytes) }
    }

    /// Whether `needle` occurs in `haystack`: `memchr` to each candidate first byte.
    private static func contains(_ needle: [UInt8], in haystack: UnsafeRawBufferPointer) -> Bool {
        guard let base = haystack.baseAddress, let first = needle.first, haystack.count >= needle.count else { return false }
        var offset = 0
        let last = haystack.count - needle.count
        while offset <= last {
            guard let found = memchr(base + offset, Int32(first), last - offset + 1) else { return false }
            let at = base.distance(to: UnsafeRawPointer(found))
            if memcmp(base + at, needle, needle.count) == 0 { return true }
            offset = at + 1
        }
        return false
    }

    private enum SealedMarker {
        static let bytes = Array("\"\(SealedRecord.member)\"".utf8)
    }
}

// MARK: - RefusedRecord

/// A record from the server that is not applied, with why; the local record stays as it is.
public struct RefusedRecord: Error, Sendable, Equatable {
    public let id: String
    public let reason: String
}
