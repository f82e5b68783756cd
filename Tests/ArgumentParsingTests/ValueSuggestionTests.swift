import ArgumentParsing
import Testing

/// "Did you mean …?" for a mistyped value: close enough to be a typo, or nothing.
@Suite("Value suggestions")
struct ValueSuggestionTests {
    let fields = ["title", "author", "finished", "id"]

    @Test(arguments: [("autor", "author"), ("titel", "title"), ("TITLE", "title"), ("finshed", "finished"), ("d", "id")])
    func aTypoGetsTheClosestValue(_ typed: String, _ meant: String) {
        #expect(ValueSuggestion.closest(to: typed, among: fields) == meant)
    }

    @Test func aSwapOfNeighboursIsOneEdit() {
        #expect(ValueSuggestion.closest(to: "dnoe", among: ["title", "done", "id"]) == "done")
    }

    @Test(arguments: ["colour", "price", "zzzzzzzz", ""])
    func aWordFarFromEveryValueGetsNoSuggestion(_ typed: String) {
        #expect(ValueSuggestion.closest(to: typed, among: fields) == nil)
    }
}
