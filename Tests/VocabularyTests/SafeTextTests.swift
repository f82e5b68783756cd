import Testing
import Vocabulary

/// The one place URLs lose their secrets and network text its control characters.
@Suite("Safe text: URL redaction and terminal escaping")
struct SafeTextTests {
    @Test(arguments: [
        ("https://ana:s3cret@shelf.example/v1", "https://shelf.example/v1"),
        ("http://ana@127.0.0.1:8888/v1/", "http://127.0.0.1:8888/v1/"),
        ("http://h/v1/records?_since=5&_token=abc&access_token=s3cret#x", "http://h/v1/records?_since=5&_token=<redacted>&access_token=<redacted>#x"),
        ("http://h/v1?api_key=k&password=p&Signature=s&sort=title", "http://h/v1?api_key=<redacted>&password=<redacted>&Signature=<redacted>&sort=title"),
        ("http://h/v1/records?_sort=last_modified", "http://h/v1/records?_sort=last_modified"),
        ("http://h/a@b/c", "http://h/a@b/c"),
        ("not a url?token=t", "not a url?token=<redacted>"),
    ])
    func urlsLoseTheirSecrets(_ url: String, _ redacted: String) {
        #expect(URLRedaction.redacted(url) == redacted)
    }

    @Test func userInfoIsDetectedInTheAuthorityOnly() {
        #expect(URLRedaction.hasUserInfo("https://a:b@h/v1"))
        #expect(!URLRedaction.hasUserInfo("https://h/v1/a@b"))
        #expect(!URLRedaction.hasUserInfo("h@x"))
    }

    @Test(arguments: [
        ("plain text", "plain text"),
        ("line one\nline two", #"line one\nline two"#),
        ("cr\rtab\t", #"cr\rtab\t"#),
        ("red \u{1B}[31m bell \u{07}", #"red \u{1B}[31m bell \u{7}"#),
        ("del \u{7F} c1 \u{9B}31m", #"del \u{7F} c1 \u{9B}31m"#),
        ("sep \u{2028} para \u{2029}", #"sep \u{2028} para \u{2029}"#),
        ("ノルウェイの森 — café", "ノルウェイの森 — café"),
        ("back\\slash", "back\\slash"),
    ])
    func controlCharactersBecomeEscapes(_ text: String, _ escaped: String) {
        let result = TerminalEscaping.escaped(text)
        #expect(result == escaped)
        #expect(!result.unicodeScalars.contains { $0.properties.generalCategory == .control })
    }
}
