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

    @Test(arguments: ["A", "AB=", "AAA", "A===", "AB?=", "ab-_", "AB=A", "=AAA", "AAAA AAAA", "AB==AAAA"])
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
}
