import Domain
import Presentation
import Synchronization
import Testing
import TestSupport

@MainActor
@Suite("Accounts view model")
struct AccountsViewModelTests {
    @Test func anAdditionPassesItsNoticesOnAndAListingFollowsIt() async {
        let service = FakeAccounts(accounts: ["home"])
        let model = AccountsViewModel(service: service)
        let notices = NoticeLog()

        #expect(await model.add("work", notify: { notices.append($0) }) == "work")
        #expect(notices.all == ["checking work"])
        await model.load()
        #expect(model.state.value == ["home", "work"])
    }

    @Test func aRefusedUseKeepsTheErrorAndAnAdditionHeldAtTheServerIsInFlight() async {
        let service = FakeAccounts(accounts: ["home"])
        let model = AccountsViewModel(service: service)
        #expect(await model.use("nope") == nil)
        #expect(model.failure as? FakeError == FakeError("no account 'nope'"))

        let gate = SuspensionGate<Void>()
        await service.hold(at: gate)
        let adding = Task { await model.add("work", notify: { _ in }) }
        await gate.arrival()
        #expect(await service.accountNames == ["home"], "nothing is saved before the server answers")
        await gate.open(with: ())
        #expect(await adding.value == "work")
        #expect(model.failure == nil)
        #expect(await model.remove("home") == "home")
    }

    @Test func anAccountWithUnsyncedChangesIsRemovedOnlyOnceConfirmed() async {
        let service = FakeAccounts(accounts: ["home", "work"])
        await service.markUnsynced("work")
        let model = AccountsViewModel(service: service)
        #expect(await model.remove("work") == nil)
        #expect(model.failure as? FakeError == FakeError("'work' has unsynced changes"))
        #expect(await service.accountNames == ["home", "work"])
        #expect(await model.remove("work", discardingUnsynced: true) == "work")
        #expect(model.failure == nil)
    }

    @Test func aNewPasswordPassesItsNoticesOn() async {
        let model = AccountsViewModel(service: FakeAccounts(accounts: ["home"]))
        let notices = NoticeLog()
        #expect(await model.changePassword("home", notify: { notices.append($0) }) == "home")
        #expect(notices.all == ["checking home"])
        #expect(await model.changePassword("gone", notify: { _ in }) == nil)
        #expect(model.failure as? FakeError == FakeError("no account 'gone'"))
    }
}

/// Accounts by name; an addition tells one notice and may wait at a gate (the server).
actor FakeAccounts: AccountService {
    private(set) var accountNames: [String]
    private var gate: SuspensionGate<Void>?

    init(accounts: [String]) {
        accountNames = accounts
    }

    func hold(at gate: SuspensionGate<Void>) {
        self.gate = gate
    }

    func accounts() async throws -> [String] { accountNames }

    func add(_ name: String, notify: @escaping @Sendable (String) -> Void) async throws -> String {
        notify("checking \(name)")
        if let gate { try await gate.pass() }
        accountNames.append(name)
        return name
    }

    func use(_ name: String) async throws -> String {
        guard accountNames.contains(name) else { throw FakeError("no account '\(name)'") }
        return name
    }

    /// Names in `unsynced` hold changes not synced yet: refused unless confirmed.
    var unsynced: Set<String> = []

    func remove(_ name: String, discardingUnsynced: Bool) async throws -> String {
        guard discardingUnsynced || !unsynced.contains(name) else { throw FakeError("'\(name)' has unsynced changes") }
        accountNames.removeAll { $0 == name }
        return name
    }

    func markUnsynced(_ name: String) { unsynced.insert(name) }

    func changePassword(_ name: String, notify: @escaping @Sendable (String) -> Void) async throws -> String {
        notify("checking \(name)")
        guard accountNames.contains(name) else { throw FakeError("no account '\(name)'") }
        return name
    }
}

/// The notices an addition gave, in order.
private final class NoticeLog: Sendable {
    private let notices = Mutex<[String]>([])
    func append(_ notice: String) { notices.withLock { $0.append(notice) } }
    var all: [String] { notices.withLock { $0 } }
}
