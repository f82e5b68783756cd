import CSodium
@testable import Encryption
import Foundation
import Testing

/// The open path's own versions of two things it once asked libsodium and `String` for:
/// each must read exactly as the original does.
@Suite("Opening a record: padding and authenticated data")
struct OpeningShortcutsTests {
    // MARK: - Padding

    /// `sodium_unpad`'s answer for `padded`: the unpadded length, nil when it refuses.
    private func sodiumUnpad(_ padded: [UInt8]) -> Int? {
        var length = 0
        return sodium_unpad(&length, padded, padded.count, RecordSealer.paddingBlock) == 0 ? length : nil
    }

    @Test func theUnpaddedLengthIsSodiumsForEveryPaddedLength() throws {
        var generator = SystemRandomNumberGenerator()
        for length in 0 ..< 200 {
            let content = (0 ..< length).map { _ in UInt8.random(in: 1 ... 255, using: &generator) }
            let padded = try RecordSealer.padded(content)
            #expect(padded.withUnsafeBytes { RecordOpener.unpaddedLength($0) } == length, "length \(length)")
            #expect(sodiumUnpad(padded) == length, "length \(length)")
        }
    }

    /// Whatever the bytes, the two agree: on a marker followed by zeros, and on each way
    /// the padding can be wrong (no marker, a marker further back than a block, a byte
    /// after the marker that is not zero, fewer bytes than a block).
    @Test func malformedPaddingIsRefusedAsSodiumRefusesIt() {
        let block = RecordSealer.paddingBlock
        var cases: [[UInt8]] = [
            [UInt8](repeating: 0, count: block),
            [UInt8](repeating: 0, count: block - 1) + [0x80],
            [0x80] + [UInt8](repeating: 0, count: block - 1),
            [0x80] + [UInt8](repeating: 0, count: block),
            [1, 0x80] + [UInt8](repeating: 0, count: block - 2),
            [UInt8](repeating: 7, count: block),
            [UInt8](repeating: 0x80, count: block),
            [UInt8](repeating: 0, count: block - 3) + [0x80, 0, 1],
            [0x80],
            [],
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0 ..< 500 {
            let count = Int.random(in: block ... block * 3, using: &generator)
            // Mostly zeros and markers, as padding is, with a few other bytes among them.
            let bytes: [UInt8] = (0 ..< count).map { _ in
                switch Int.random(in: 0 ..< 8, using: &generator) {
                case 0: 0x80
                case 1: UInt8.random(in: 0 ... 255, using: &generator)
                default: 0
                }
            }
            cases.append(bytes)
        }
        for padded in cases {
            #expect(padded.withUnsafeBytes { RecordOpener.unpaddedLength($0) } == sodiumUnpad(padded), "\(padded.suffix(8)) of \(padded.count)")
        }
    }

    // MARK: - Authenticated data

    @Test(arguments: [0, 1, 9, 10, 99, 12_345, 1 << 53 - 1, Int64.max, -1, -10, Int64.min] as [Int64])
    func aNumberIsThePartItsTextIs(_ value: Int64) {
        var fromText: [UInt8] = [1, 2]
        var fromNumber: [UInt8] = [1, 2]
        AssociatedData.append(String(value), to: &fromText)
        AssociatedData.append(decimal: value, to: &fromNumber)
        #expect(fromNumber == fromText)
    }
}
