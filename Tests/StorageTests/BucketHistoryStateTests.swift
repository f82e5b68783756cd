import Foundation
import Testing
@testable import Storage

/// The reading of the server's bucket history a device keeps (`BucketHistoryState`): it
/// survives a reopen whole, belongs to one bucket, and a value that does not read is no
/// reading (the next run reads the history afresh), never a failed sync.
@Suite("The bucket's history reading")
struct BucketHistoryStateTests {
    static let seen = Date(timeIntervalSince1970: 1_800_000_000.123)

    static let reading = BucketHistoryState(
        bucket: "b-1", cursor: 9_000, settled: 8_000, serverClock: ServerClockReading(timestamp: 9_000, seenAt: seen),
        fullCheckAt: seen, covered: ["e1": 8_500])

    @Test func aReadingSurvivesAReopenWhole() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-history-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("store.sqlite")
        var kept = Self.reading
        kept.proof = BucketHistoryState.Proof(collection: "books", id: "b1", version: 8_900)
        try ShelfStore(location: .file(path)).write { tx in try tx.setBucketHistory(kept) }

        let reopened = try ShelfStore(location: .file(path)).read { try $0.bucketHistory(of: "b-1") }

        #expect(reopened?.cursor == 9_000)
        #expect(reopened?.settled == 8_000)
        #expect(reopened?.covered == ["e1": 8_500])
        #expect(reopened?.proof == kept.proof)
        #expect(reopened.map { abs($0.fullCheckAt.timeIntervalSince(Self.seen)) < 0.001 } == true, "kept to the millisecond")
    }

    @Test func aReadingOfAnotherBucketIsNoReading() throws {
        let store = try ShelfStore.inMemory()
        try store.write { tx in try tx.setBucketHistory(Self.reading) }
        #expect(try store.read { try $0.bucketHistory(of: "b-2") } == nil)
        try store.write { tx in try tx.setBucketHistory(nil) }
        #expect(try store.read { try $0.bucketHistory(of: "b-1") } == nil)
    }

    @Test(arguments: [Data("not json".utf8), Data(#"{"bucket":"b-1","cursor":-5,"fullCheckAt":0,"covered":{}}"#.utf8), Data(count: 70_000)])
    func aValueThatDoesNotReadIsNoReading(_ stored: Data) throws {
        let store = try ShelfStore.inMemory()
        try store.write { tx in try tx.setPreference(StoreReader.bucketHistoryKey, stored) }
        #expect(try store.read { try $0.bucketHistory(of: "b-1") } == nil)
    }

    @Test func aProofIsNotedOnlyOnAReadingThatIsTrusted() throws {
        let store = try ShelfStore.inMemory()
        let proof = BucketHistoryState.Proof(collection: "books", id: "b1", version: 10)
        try store.write { tx in try tx.noteBucketHistoryProof(proof, bucket: "b-1") }
        #expect(try store.read { try $0.bucketHistory(of: "b-1") } == nil, "no reading: the next one comes after this write")

        try store.write { tx in try tx.setBucketHistory(Self.reading) }
        try store.write { tx in try tx.noteBucketHistoryProof(proof, bucket: "b-1") }
        #expect(try store.read { try $0.bucketHistory(of: "b-1") }?.proof == proof)

        var distrusted = Self.reading
        distrusted.distrustedUntil = Self.seen
        try store.write { tx in try tx.setBucketHistory(distrusted) }
        try store.write { tx in try tx.noteBucketHistoryProof(proof, bucket: "b-1") }
        #expect(try store.read { try $0.bucketHistory(of: "b-1") }?.proof == nil)
    }
}
