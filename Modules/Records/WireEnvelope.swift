// MARK: - WireEnvelope

/// What a record's top level says of an end-to-end encrypted envelope, read in the same
/// pass that finds its `id`, `last_modified` and `deleted` (`scanRecord`): one reading of
/// the bytes decides the record's identity and what is opened, so no second parser can
/// see another `id` or another envelope in them.
///
/// The envelope (`"shelf_enc": {"v", "kid", "seq", "del", "n", "c"}`) is the Encryption
/// module's format; this type only finds its members. Nothing here is trusted: every
/// member is checked again by the opener, and the nonce and ciphertext are authenticated.
public struct WireEnvelope: Sendable, Hashable {
    /// The member a sealed record keeps its envelope in.
    public static let member = "shelf_enc"

    /// `v`: the format version, when it is an integer.
    public var version: Int?
    /// `kid`: the key id as written (checked by the opener).
    public var keyID: String?
    /// `seq`: the version's sequence number, when it is an integer.
    public var sequence: Int?
    /// `del: true`: the version is the reader's deletion of the record.
    public var isDeletion = false
    /// `n` and `c`: the base64 text of the nonce and ciphertext, as byte offsets into the
    /// record's `json` (between the quotes); nil when absent, not strings, or escaped.
    public var nonce: Range<Int>?
    public var ciphertext: Range<Int>?
    /// Envelope members beyond `v`, `kid`, `seq`, `del`, `n`, `c`, or one of them of another
    /// type (`del` anything but `true`).
    public var unexpectedMembers = 0
    /// Whether `shelf_enc` is an object at all.
    public var isObject = false
    /// Members of the record beside `id`, `last_modified` and the envelope (a `deleted`
    /// member counts, whatever its value): a sealed record carries nothing else in the clear.
    public var membersBeside = 0

    public init() {}
}

// MARK: - Reading

extension JSONByteScanner {
    /// Reads a `shelf_enc` value (the scanner is on it); offsets are made relative to
    /// `recordStart`, where the record's `json` begins.
    mutating func scanEnvelope(recordStart: Int) throws(JSONScanError) -> WireEnvelope {
        var envelope = WireEnvelope()
        skipWhitespace()
        guard peek == UInt8(ascii: "{") else {
            try skipValue()
            return envelope
        }
        envelope.isObject = true
        try forEachMember { key, scanner throws(JSONScanError) in
            scanner.skipWhitespace()
            let byte = scanner.peek
            let isNumber = byte == UInt8(ascii: "-") || byte.map { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } == true
            let isString = byte == UInt8(ascii: "\"")
            if scanner.key(key, is: "v"), isNumber {
                envelope.version = try? scanner.readInteger("\"v\"")
                if envelope.version == nil { envelope.unexpectedMembers += 1 }
            } else if scanner.key(key, is: "seq"), isNumber {
                envelope.sequence = try? scanner.readInteger("\"seq\"")
                if envelope.sequence == nil { envelope.unexpectedMembers += 1 }
            } else if scanner.key(key, is: "del"), scanner.peek == UInt8(ascii: "t") {
                envelope.isDeletion = try scanner.readBool("\"del\"")
            } else if scanner.key(key, is: "kid"), isString {
                envelope.keyID = try scanner.readString("\"kid\"")
            } else if scanner.key(key, is: "n"), isString {
                envelope.nonce = try scanner.unescapedText(relativeTo: recordStart)
                if envelope.nonce == nil { envelope.unexpectedMembers += 1 }
            } else if scanner.key(key, is: "c"), isString {
                envelope.ciphertext = try scanner.unescapedText(relativeTo: recordStart)
                if envelope.ciphertext == nil { envelope.unexpectedMembers += 1 }
            } else {
                envelope.unexpectedMembers += 1
                try scanner.skipValue()
            }
        }
        return envelope
    }

    /// A string's bytes between its quotes, relative to `origin`; nil (having stepped
    /// over it) when it holds escapes, which base64 never needs.
    private mutating func unescapedText(relativeTo origin: Int) throws(JSONScanError) -> Range<Int>? {
        let token = try scanString()
        guard !token.hasEscapes else { return nil }
        return (token.start - origin)..<(token.end - origin)
    }
}
