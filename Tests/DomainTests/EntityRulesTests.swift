import Domain
import Foundation
import Testing

@Suite("Entity rules")
struct EntityRulesTests {
    @Test func titlesAreTrimmed() throws {
        let book = try Book(id: "b1", title: "  Dune \n", author: " Frank Herbert ")
        #expect(book.title == "Dune")
        #expect(book.author == "Frank Herbert")
    }

    @Test(arguments: ["", "   ", "\n\t "])
    func emptyTitlesAreRejected(_ title: String) {
        #expect(throws: DomainError.emptyTitle(field: "title")) { try Book(id: "b1", title: title, author: "A") }
        #expect(throws: DomainError.emptyTitle(field: "title")) { try Note(id: "n1", title: title) }
        #expect(throws: DomainError.emptyTitle(field: "title")) { try ReadingTask(id: "t1", title: title) }
    }

    /// Titles that already look trimmed at an ASCII end take a shortcut; whatever the
    /// ends hold, the result is Foundation's trimming.
    @Test(arguments: ["Dune", "A", "x y", "Solaris ", " Solaris", "\tDune\n", "Dune\u{00A0}", "\u{3000}東京", "Étranger",
                      "«Años»", "Dune\r\n", "~", "a\u{2028}"])
    func trimmingMatchesFoundationWhateverTheEnds(_ title: String) throws {
        #expect(try TitleRule.validate(title) == title.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// An anthology, or a book whose author the reader does not know: the author may be
    /// left out, and is trimmed like a title.
    @Test func anAuthorMayBeEmptyAndIsTrimmed() throws {
        #expect(try Book(id: "b1", title: "T", author: " ").author == "")
        #expect(try Book(id: "b1", title: "T").author == "")
        var book = try Book(id: "b1", title: "T", author: " Le Guin\n")
        #expect(book.author == "Le Guin")
        book.setAuthor("\t")
        #expect(book.author == "")
    }

    @Test func aNoteBodyMustSaySomething() throws {
        #expect(throws: DomainError.emptyBody) { try NoteBodyRule.validate("") }
        #expect(throws: DomainError.emptyBody) { try NoteBodyRule.validate(" \n\t\u{3000}") }
        #expect(try NoteBodyRule.validate("  Walls.\n") == "  Walls.\n", "the reader's spacing is kept")
        #expect(try Note(id: "n1", title: "T", body: "").body == "", "a note written elsewhere with no body still reads")
    }

    @Test func renameFollowsTheSameRule() throws {
        var task = try ReadingTask(id: "t1", title: "Read")
        try task.rename(to: "  Read more ")
        #expect(task.title == "Read more")
        #expect(throws: DomainError.emptyTitle(field: "title")) { try task.rename(to: "") }
        #expect(task.title == "Read more")
    }

    @Test(arguments: ["", "has space", "slash/inside", "ünïcode", String(repeating: "x", count: 65)])
    func malformedIdentifiersAreRejected(_ id: String) {
        #expect(throws: DomainError.invalidIdentifier(id)) { try Book(id: id, title: "T", author: "A") }
    }

    @Test func noteBookIDIsValidated() {
        #expect(throws: DomainError.invalidIdentifier("bad id")) { try Note(id: "n1", bookID: "bad id", title: "T") }
    }

    @Test func moneyKeepsMinorUnitsAndNormalisesCurrency() throws {
        let price = try Money(minorUnits: 1299, currency: "eur")
        #expect(price.currency == "EUR")
        #expect(price.formatted == "12.99 EUR")
        #expect(try Money(minorUnits: 5, currency: "USD").formatted == "0.05 USD")
        #expect(throws: DomainError.negativePrice(-1)) { try Money(minorUnits: -1, currency: "EUR") }
        #expect(throws: DomainError.invalidCurrency("EURO")) { try Money(minorUnits: 1, currency: "EURO") }
        #expect(throws: DomainError.invalidCurrency("E1R")) { try Money(minorUnits: 1, currency: "E1R") }
    }

    @Test func productNameFollowsTheTitleRule() throws {
        let price = try Money(minorUnits: 100, currency: "EUR")
        #expect(throws: DomainError.emptyTitle(field: "name")) { try Product(id: "p1", name: " ", price: price) }
    }

    @Test func cartQuantityMustBePositive() throws {
        var item = try CartItem(productID: "p1", quantity: 2)
        #expect(item.id == "p1")
        #expect(throws: DomainError.invalidQuantity(0)) { try CartItem(productID: "p1", quantity: 0) }
        #expect(throws: DomainError.invalidQuantity(-3)) { try item.setQuantity(-3) }
        #expect(item.quantity == 2)
    }

    @Test func errorsDescribeTheRule() {
        #expect(DomainError.dailyGoalOutOfRange(300).description.contains("5...120"))
        #expect(DomainError.duplicateIdentities(["a", "b"]).description == "duplicate ids: a, b")
    }
}
