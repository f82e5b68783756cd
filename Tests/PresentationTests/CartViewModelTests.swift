import Domain
import Presentation
import Testing
import TestSupport

@MainActor
@Suite("Cart view model")
struct CartViewModelTests {
    let cart: FakeCartService
    let catalog: FakeCatalogService
    let model: CartViewModel

    init() throws {
        cart = FakeCartService(items: try SampleShelf.cart())
        catalog = FakeCatalogService(products: try SampleShelf.products())
        model = CartViewModel(cart: cart, catalog: catalog)
    }

    @Test func totalsAreExactPerCurrency() async throws {
        await model.load()

        // 3 × 4.50 + 1 × 29.99 EUR; 2 × 15.00 USD; prod-999 is not in the catalog.
        #expect(model.totals == [try Money(minorUnits: 4349, currency: "EUR"), try Money(minorUnits: 3000, currency: "USD")])
        #expect(model.lines.map(\.lineTotal?.minorUnits) == [1350, 2999, 3000, nil])
        #expect(model.state.value?.unpricedLines.map(\.productID) == ["prod-999"])
        #expect(model.state.value?.itemCount == 7)
    }

    @Test func anEmptyCartHasNoTotals() async {
        await cart.enqueueLoad(.value([]))

        await model.load()

        #expect(model.state.value?.isEmpty == true)
        #expect(model.totals.isEmpty)
    }

    @Test func addingAProductAlreadyInTheCartAddsToItsQuantity() async throws {
        await model.load()

        #expect(await model.add(productID: "prod-001"))
        #expect(await model.add(productID: "prod-003", quantity: 2))

        #expect(await cart.writes == ["set 4 prod-001", "set 2 prod-003"])
        #expect(model.state.value?.line(productID: "prod-001")?.quantity == 4)
        #expect(model.totals.first == (try Money(minorUnits: 4 * 450 + 2999 + 2 * 1250, currency: "EUR")))
    }

    @Test func setQuantityReplacesTheLineAndTotalsFollow() async throws {
        await model.load()

        #expect(await model.setQuantity(1, of: "prod-001"))

        #expect(model.totals == [try Money(minorUnits: 450 + 2999, currency: "EUR"), try Money(minorUnits: 3000, currency: "USD")])
    }

    @Test(arguments: [0, -1])
    func aQuantityBelowOneIsRefusedByTheDomainRule(quantity: Int) async {
        await model.load()

        #expect(await model.setQuantity(quantity, of: "prod-001") == false)
        #expect(await model.add(productID: "prod-001", quantity: quantity) == false)

        #expect(model.errorMessage == "Could not add to the cart: quantity must be at least 1, got \(quantity)")
        #expect(await cart.writes.isEmpty)
        #expect(model.state.value?.line(productID: "prod-001")?.quantity == 3)
    }

    @Test func aProductOutsideTheCatalogIsRefused() async {
        await model.load()

        #expect(await model.add(productID: "prod-777") == false)

        #expect(model.errorMessage == "Could not add to the cart: product 'prod-777' is not in the catalog")
        #expect(await cart.writes.isEmpty)
    }

    @Test func intentsBeforeLoadingAreRefused() async {
        #expect(await model.add(productID: "prod-001") == false)
        #expect(model.errorMessage == "Could not add to the cart: the cart is not loaded yet")
        #expect(await cart.writes.isEmpty)
    }

    @Test func removeDropsTheLineAndItsTotal() async throws {
        await model.load()

        #expect(await model.remove(productID: "prod-004"))

        #expect(model.totals == [try Money(minorUnits: 4349, currency: "EUR")])
        #expect(await model.remove(productID: "prod-004") == false)
        #expect(model.errorMessage == "Could not remove from the cart: no cart line with id 'prod-004'")
    }

    @Test func aFailedCatalogLoadFailsTheCartAndKeepsWhatWasShown() async throws {
        await model.load()
        let shown = try #require(model.state.value)
        await catalog.enqueueLoad(.failure(FakeError("HTTP 503")))

        await model.load()

        #expect(model.state == .failed(message: "Could not load the cart: HTTP 503", previous: shown))
    }

    @Test func twoLoadsWhileOneIsInFlightCostOneCallEach() async throws {
        let gate = SuspensionGate<[CartItem]>()
        await cart.enqueueLoad(.gate(gate))
        let first = Task { await model.load() }
        await gate.arrival()
        let joined = Checkpoint()
        let second = Task { joined.pass(); await model.load() }
        await joined.reached()

        await gate.open(with: try SampleShelf.cart())
        await first.value
        await second.value

        #expect(await cart.loadCount == 1)
        #expect(await catalog.loadCount == 1)
        #expect(model.lines.count == 4)
    }
}

@MainActor
@Suite("Product view model")
struct ProductViewModelTests {
    let catalog: FakeCatalogService
    let model: ProductViewModel

    init() throws {
        catalog = FakeCatalogService(products: try SampleShelf.products())
        model = ProductViewModel(service: catalog)
    }

    @Test func loadsAndSearchesByNameIgnoringAccents() async {
        #expect(model.state == .idle)
        await model.load()

        model.search("CAFE")
        #expect(model.visibleProducts.map(\.id) == ["prod-003"])
        model.search("")
        #expect(model.visibleProducts.count == 4)
        #expect(model.product(id: "prod-002")?.price.formatted == "29.99 EUR")
    }

    @Test func aFailedLoadKeepsTheCatalog() async throws {
        await model.load()
        await catalog.enqueueLoad(.failure(FakeError("HTTP 500")))

        await model.load(force: true)

        #expect(model.products == (try SampleShelf.products()))
        #expect(model.errorMessage == "Could not load the catalog: HTTP 500")
    }

    @Test func aCancelledLoadNeverPublishes() async throws {
        let gate = SuspensionGate<[Product]>()
        await catalog.enqueueLoad(.gate(gate))
        let load = Task { await model.load() }
        await gate.arrival()

        load.cancel()
        await load.value

        #expect(model.state == .idle)
        #expect(model.errorMessage == nil)
    }
}
