@testable import Encryption
import Foundation
import Testing

/// The envelope's nonce and ciphertext are decoded from the page's bytes: as Foundation
/// decodes canonical base64, and nothing else.
@Suite("Base64 read from the wire")
struct Base64Tests {
    private func decode(_ text: String, maximum: Int = 1 << 20) -> [UInt8]? {
        Array(text.utf8).withUnsafeBytes { Base64.decode($0, maximum: maximum) }
    }

    @Test func everyLengthDecodesAsFoundationDoes() {
        var generator = SystemRandomNumberGenerator()
        for length in 0 ..< 70 {
            let bytes = (0 ..< length).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }
            let text = Data(bytes).base64EncodedString()
            #expect(decode(text) == bytes, "length \(length)")
        }
    }

    // NB: the digits of whole groups are checked together at the end: a bad one in the
    // first, a middle or the last whole group is refused all the same.
    @Test(arguments: [
        "A", "AB=", "AAA", "A===", "AB?=", "ab-_", "AB=A", "=AAA", "AAAA AAAA", "AB==AAAA",
        "?AAAAAAAAAAA", "AAAAA\u{0}AAAAAA", "AAAAAAAA\u{80}AAA", "AAAAAAAAAAA\u{7F}",
    ])
    func textThatIsNotBase64IsRefused(_ text: String) {
        #expect(decode(text) == nil)
    }

    /// One ciphertext, one text: the bits a padded group leaves over must be zero.
    @Test func nonCanonicalPaddingBitsAreRefused() {
        #expect(decode("AA==") == [0])
        #expect(decode("AB==") == nil)
        #expect(decode("AAA=") == [0, 0])
        #expect(decode("AAB=") == nil)
    }

    @Test func aTextLongerThanTheMaximumIsRefusedBeforeDecoding() {
        #expect(decode("AAAAAAAA", maximum: 6) == [0, 0, 0, 0, 0, 0])
        #expect(decode("AAAAAAAA", maximum: 5) == nil)
    }

    /// `RecordOpener` decodes every record of a page into one buffer: what a longer text
    /// left behind is never read as part of a shorter one, and a short buffer is refused.
    @Test func decodingIntoAKeptBufferWritesOnlyTheFront() {
        var buffer = [UInt8](repeating: 0xAA, count: 8)
        let long = Array(Data([1, 2, 3, 4, 5, 6]).base64EncodedString().utf8)
        let short = Array(Data([9, 8]).base64EncodedString().utf8)
        let wrote = long.withUnsafeBytes { text in buffer.withUnsafeMutableBytes { Base64.decode(text, into: $0) } }
        #expect(wrote == 6)
        #expect(Array(buffer[..<6]) == [1, 2, 3, 4, 5, 6])
        let wroteShort = short.withUnsafeBytes { text in buffer.withUnsafeMutableBytes { Base64.decode(text, into: $0) } }
        #expect(wroteShort == 2)
        #expect(Array(buffer[..<2]) == [9, 8])
        var tiny = [UInt8](repeating: 0, count: 5)
        #expect(long.withUnsafeBytes { text in tiny.withUnsafeMutableBytes { Base64.decode(text, into: $0) } } == nil)
        #expect(Array("AB?=".utf8).withUnsafeBytes { text in buffer.withUnsafeMutableBytes { Base64.decode(text, into: $0) } } == nil)
    }
}
