import Domain
import Foundation
import Storage
import Sync
import Synchronization
import Testing

/// `AccountAddition` without a server: what is checked before anything is written, what
/// is saved, and which account becomes the current one. (Verification and sign-up
/// against a real Kinto are `ShelfCLITests`' `ServerSetupTests`.)
@Suite("Account addition")
struct AccountAdditionTests {
    private let root: URL
    private let accounts: AccountStore

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-account-addition-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        accounts = AccountStore(paths: ShelfPaths(environment: [
            "HOME": root.path, "XDG_CONFIG_HOME": root.appendingPathComponent("config").path,
            "XDG_DATA_HOME": root.appendingPathComponent("data").path,
        ]))
    }

    @Test func theFirstAccountIsSavedAndBecomesTheCurrentOne() async throws {
        let addition = try AccountAddition(name: "home", server: "http://127.0.0.1:8888/", accounts: accounts)
        #expect(addition.server == "http://127.0.0.1:8888/v1")
        let added = try await addition.add(user: "ana", password: .given("pw"), caFile: nil, verification: .none, notify: { _ in })
        #expect(added.isCurrent && added.adopted == nil)
        #expect(try accounts.load(added.name).user == "ana")

        let second = try await AccountAddition(name: "work", server: "http://127.0.0.1:8888", accounts: accounts)
            .add(user: "ana", password: .given("pw"), caFile: nil, verification: .none, notify: { _ in })
        #expect(!second.isCurrent, "the current account stays")
    }

    @Test func aTakenNameOrAServerURLWithAPasswordIsRefusedBeforeAnythingIsWritten() async throws {
        _ = try await AccountAddition(name: "home", server: "http://127.0.0.1:8888", accounts: accounts)
            .add(user: "ana", password: .given("pw"), caFile: nil, verification: .none, notify: { _ in })
        #expect(throws: AccountConfigError.alreadyExists("home")) {
            try AccountAddition(name: "home", server: "http://127.0.0.1:8888", accounts: accounts)
        }
        #expect(throws: AccountConfigError.self) {
            try AccountAddition(name: "other", server: "http://ana:secret@127.0.0.1:8888", accounts: accounts)
        }
        #expect(accounts.list().map(\.rawValue) == ["home"])
    }

    @Test func plainHTTPToAnotherMachineIsAWarningAsItHappens() async throws {
        let notices = NoticeLog()
        _ = try await AccountAddition(name: "lan", server: "http://192.0.2.7:8888", accounts: accounts)
            .add(user: "ana", password: .given("pw"), caFile: nil, verification: .none, notify: { notices.append($0) })
        #expect(notices.all.count == 1)
        guard case .warning(let text)? = notices.all.first else { Issue.record("no warning"); return }
        #expect(text.contains("192.0.2.7"))
    }
}

/// The notices an addition gave, in order.
private final class NoticeLog: Sendable {
    private let notices = Mutex<[AccountAddition.Notice]>([])
    func append(_ notice: AccountAddition.Notice) { notices.withLock { $0.append(notice) } }
    var all: [AccountAddition.Notice] { notices.withLock { $0 } }
}
