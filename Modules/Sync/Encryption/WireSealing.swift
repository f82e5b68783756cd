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
/// body is sealed as it is sent (`sealed(body:in:id:deletion:)`), and every record the
/// server hands back — pulled, reconciled, or carried by a 412 — is opened before anything
/// else looks at it (`opened(_:in:)`), each with where it came from (`Provenance`), which
/// the rules against a hostile server (`IntegrityGate`) decide on. The shop catalog is not
/// the reader's and stays in the clear (`seals`).
public enum WireSealing: Sendable {
    /// The account is not encrypted, as far as this device knows.
    case plaintext
    /// Sealed with `sealer`'s keyring, under the rules `policy` says (the plaintext period,
    /// the retired keys) as the newest authenticated keyring this device saw has them.
    case sealed(RecordSealer, policy: IntegrityPolicy)
    /// The account is encrypted and this device holds no key: the reader's collections
    /// are neither pulled nor pushed, so nothing is written over them (`lockedReason`).
    case locked

    /// Whether `collection`'s records are sealed: every collection but the catalog.
    public static func seals(_ collection: CollectionName) -> Bool { !collection.isReadOnly }

    /// What the run says of a collection it leaves alone for want of a key.
    public static let lockedReason =
        "the account's records are encrypted and this device holds no key: run 'shelf encryption join'; its local changes wait"

    /// Whether this run seals what it sends (and so numbers every version it writes).
    var isSealed: Bool {
        if case .sealed = self { return true }
        return false
    }

    // MARK: - Sending

    /// The body of a create or update as it goes out: sealed when the account is, as the
    /// version its `_shelf_seq` names (`SyncRules.markSent` numbered it).
    /// - Parameters:
    ///   - body: the push body (`PushBody`): the record without server fields; for a
    ///     deletion, its lineage and sequence number (`SyncRules.markSent`).
    ///   - deletion: the body is a reader's deletion, sealed as one (`sealDeletion`).
    public func sealed(body: Data, in collection: CollectionName, id: String, deletion: Bool = false) throws -> Data {
        guard case .sealed(let sealer, _) = self, Self.seals(collection) else { return body }
        var fields = try WireJSON.fields(body)
        // NB: an entry sent by a build that did not number versions carries no number: 1.
        let sequence = fields[RecordSealer.sequenceField]?.intValue.map(Int64.init) ?? 1
        var sealed: [String: JSONValue]
        if deletion {
            let lineage = RecordLineage.ids(in: fields)
            sealed = try sealer.sealDeletion(id: id, lineage: lineage, sequence: sequence, in: collection.rawValue)
        } else {
            fields["id"] = .string(id)
            sealed = try sealer.seal(fields, in: collection.rawValue, sequence: sequence)
        }
        ServerOwnedFields.removeAll(from: &sealed)
        return try WireJSON.data(sealed)
    }

    // MARK: - Receiving

    /// Where a record the server sent came from, once opened.
    enum Provenance: Equatable {
        /// In the clear: no envelope.
        case plaintext
        /// A Kinto tombstone: a deletion no key vouches for.
        case tombstone
        /// A format 1 envelope: sealed by the reader, but with no sequence number.
        case legacySealed
        /// A format 2 envelope: a live version or a reader's deletion, numbered.
        case sealed(sequence: Int64, revision: String?, keyID: String, deletion: Bool)
    }

    /// What opening records from the server gave.
    struct Opened {
        /// The records as the store keeps them: opened (a sealed deletion as a tombstone),
        /// or as they came (tombstones, the catalog, an account in the clear).
        var records: [RawRecord] = []
        /// Where each of `records` came from, at the same index (sealed collections of a
        /// sealed run; empty otherwise).
        var provenance: [Provenance] = []
        /// Records not applied, with why: altered, moved, sealed with an unknown key.
        var refused: [RefusedRecord] = []
        /// A sealed record arrived on a device that thought the account in the clear.
        var metSealedRecords = false
        /// Key ids of records sealed under a key this device's keyring does not list.
        var unknownKeys: Set<String> = []
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
        case .sealed(let sealer, _):
            var opened = Opened()
            opened.records.reserveCapacity(records.count)
            opened.provenance.reserveCapacity(records.count)
            let opener = RecordOpener(sealer)
            // NB: by index: iterating the records copied each (a retain and a release of
            // each of its parts) only to read it.
            for index in records.indices {
                switch Self.open(records[index], in: collection, opener) {
                case .success(let (plain, provenance)):
                    opened.records.append(plain)
                    opened.provenance.append(provenance)
                case .failure(let refusal):
                    if case .unknownKey(let id) = refusal.error { opened.unknownKeys.insert(id.rawValue) }
                    opened.refused.append(refusal.record)
                }
            }
            return opened
        }
    }

    /// A refusal, with the error behind it.
    private struct OpenRefusal: Error {
        let record: RefusedRecord
        let error: EncryptionError
    }

    private static func open(
        _ record: RawRecord, in collection: CollectionName, _ opener: RecordOpener
    ) -> Result<(RawRecord, Provenance), OpenRefusal> {
        if record.isDeleted, record.envelope == nil { return .success((record, .tombstone)) }
        guard record.envelope != nil else { return .success((withoutSequence(record), .plaintext)) }
        do {
            let opened = try opener.open(record, in: collection.rawValue, indexing: collection)
            guard let sequence = opened.sequence else { return .success((opened.record, .legacySealed)) }
            let provenance = Provenance.sealed(
                sequence: sequence, revision: opened.revision, keyID: opened.keyID.rawValue, deletion: opened.isDeletion)
            return .success((opened.record, provenance))
        } catch {
            return .failure(OpenRefusal(record: RefusedRecord(id: record.id, reason: Self.reason(error)), error: error))
        }
    }

    /// A record in the clear as the store may keep it: without a `_shelf_seq`, which only
    /// an opened seal may carry (it is how a device knows it saw a record sealed).
    private static func withoutSequence(_ record: RawRecord) -> RawRecord {
        let marker = Array("\"\(RecordSealer.sequenceField)\"".utf8)
        guard record.json.withUnsafeBytes({ contains(marker, in: $0) }), var fields = try? WireJSON.fields(record.json) else {
            return record
        }
        fields.removeValue(forKey: RecordSealer.sequenceField)
        guard let json = try? WireJSON.data(fields) else { return record }
        return RawRecord(id: record.id, lastModified: record.lastModified, isDeleted: record.isDeleted, json: json)
    }

    /// A refusal in words a reader can act on.
    private static func reason(_ error: EncryptionError) -> String {
        switch error {
        case .tampered:
            return "its ciphertext does not verify (altered, or moved from another record or collection)"
        case .unknownKey(let id):
            return """
                sealed with key \(id), which this device's keyring does not list: the keyring here is out of date \
                (another device rotated: run 'shelf encryption join') or the server rolled it back
                """
        default:
            return "\(error)"
        }
    }

    /// Whether a record's bytes carry the envelope, without decoding it: the plaintext
    /// path stays as fast as it was.
    static func looksSealed(_ record: RawRecord) -> Bool {
        !record.isDeleted && (record.envelope != nil || record.json.withUnsafeBytes { bytes in contains(SealedMarker.bytes, in: bytes) })
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

// MARK: - IntegrityPolicy

/// What the newest authenticated keyring this device saw decides for the records it
/// takes (`IntegrityGate`).
public struct IntegrityPolicy: Sendable, Equatable {
    /// The plaintext period is open: records in the clear (and format 1 envelopes) are
    /// taken for ids never seen sealed, and sealed again.
    public var plaintextOpen: Bool
    /// Keys every record was sealed again away from: a new version under one is refused.
    public var retiredKeys: Set<String>

    public init(plaintextOpen: Bool, retiredKeys: Set<String> = []) {
        self.plaintextOpen = plaintextOpen
        self.retiredKeys = retiredKeys
    }

    /// From what the store remembers of the keyring. An account whose keyring was never
    /// authenticated (format 1, before its upgrade) is in its migration: open.
    init(_ state: EncryptionState) {
        plaintextOpen = state.plaintextClosed != true
        retiredKeys = Set((state.keyStates ?? [:]).filter { $0.value == KeyringManifest.KeyState.retired.rawValue }.keys)
    }
}

// MARK: - RefusedRecord

/// A record from the server that is not applied, with why; the local record stays as it is.
public struct RefusedRecord: Error, Sendable, Equatable {
    public let id: String
    public let reason: String
}
