import Foundation
import Storage
@testable import Sync
import TestSupport
import Testing

/// A run told to rest after idle runs (`IdleRest`, `shelf-sync --rest-when-idle`) against
/// a real Kinto: when it asks the server, that a rest makes no request and is never a
/// sync, and what ends a rest. `IdleRestTests` has the rule's table.
@Suite("Resting after idle runs")
struct IdleRestRunTests {
    let server: KintoServer
    let user: TestUser

    init() async throws {
        server = try KintoServer.shared()
        user = try await server.newUser(prefix: "rest")
    }

    static func resting(_ longest: Int = 4) -> SyncOptions {
        var options = SyncOptions(retry: .none)
        options.idleRest = IdleRest(longest: longest)
        return options
    }

    /// Runs `device` until its streak rests one tick: a first run that pushes a book (and
    /// brings the shop catalog, so it ends any streak), then two idle runs.
    private func bringToRest(_ device: SyncDevice) async throws {
        try device.saveBook("b1", title: "Dune")
        let first = await device.sync()
        #expect(first.outcome == .synced && first.collections["books"]?.pushed == 1, "\(first.message)")
        for _ in 0..<2 {
            let idle = await device.sync()
            #expect(idle.outcome == .synced && idle.requests == 1, "\(idle.message)")
        }
        #expect(try device.store.read { try $0.idleStreak() } == IdleStreak(idleRuns: 2, ticksToRest: 1))
    }

    @Test func idleRunsRestWithoutARequestAndARestIsNeverASync() async throws {
        let device = try SyncDevice(user: user, server: server, options: Self.resting())
        try await bringToRest(device)
        let lastSync = try device.store.read { try $0.lastCompleteSync() }

        #expect(try device.store.read { try $0.syncStatus() }.restingTicks == 1, "shelf status says the worker rests")
        let rested = await device.sync()

        #expect(rested.outcome == .rested, "\(rested.message)")
        #expect(try device.store.read { try $0.syncStatus() }.restingTicks == 0)
        #expect(rested.outcome.exitStatus == .success)
        #expect(rested.requests == 0)
        #expect(rested.collections.isEmpty)
        #expect(rested.message.hasPrefix("rested: the last 2 runs brought nothing from the server"))
        #expect(try device.store.read { try $0.lastCompleteSync() } == lastSync, "a rest is no complete sync")

        // THEN the next tick asks; its idle run rests three ticks, and the fourth asks again
        let asked = await device.sync()
        #expect(asked.outcome == .synced && asked.requests == 1, "\(asked.message)")
        var outcomes: [RunOutcome] = []
        for _ in 0..<4 { outcomes.append(await device.sync().outcome) }
        #expect(outcomes == [.rested, .rested, .rested, .synced])
    }

    @Test func aLocalChangeEndsTheRestAtOnceAndTheRestGoesOnAfterIt() async throws {
        let device = try SyncDevice(user: user, server: server, options: Self.resting())
        try await bringToRest(device)

        try device.saveBook("b2", title: "Emma")
        let run = await device.sync()

        #expect(run.outcome == .synced, "\(run.message)")
        #expect(run.collections["books"]?.pushed == 1)
        #expect(try await device.serverBook("b2")["title"]?.stringValue == "Emma")
        // THEN its run brought nothing from the server: the streak goes on, and the next ticks rest
        #expect(try device.store.read { try $0.idleStreak() } == IdleStreak(idleRuns: 3, ticksToRest: 3))
        #expect(await device.sync().outcome == .rested)
    }

    @Test func anotherDevicesChangeArrivesWithinTheRestAndEndsTheStreak() async throws {
        let resting = try SyncDevice(user: user, server: server, options: Self.resting())
        try await bringToRest(resting)
        let other = try SyncDevice(user: user, server: server)
        _ = await other.sync()
        try other.editBook("b1") { $0["title"] = .string("Dune Messiah") }
        #expect(await other.sync().outcome == .synced)

        // WHEN the resting device's ticks come: one rest is left, then it asks
        #expect(await resting.sync().outcome == .rested)
        let asked = await resting.sync()

        #expect(asked.outcome == .synced && asked.collections["books"]?.pulled == 1, "\(asked.message)")
        #expect(try resting.title("b1") == "Dune Messiah")
        #expect(try resting.store.read { try $0.idleStreak() } == IdleStreak())
        #expect(await resting.sync().requests == 1, "the next tick asks too")
    }

    @Test func aRunThatNeverRestsStillEndsTheWorkersStreak() async throws {
        let worker = try SyncDevice(user: user, server: server, options: Self.resting())
        try await bringToRest(worker)
        let other = try SyncDevice(user: user, server: server)
        _ = await other.sync()
        try other.saveBook("b2", title: "Emma")
        _ = await other.sync()

        // WHEN a person's `shelf sync` (no rest) on the worker's store pulls the change
        let manual = try SyncDevice(user: user, server: server, store: worker.store)
        let pulled = await manual.sync()

        // THEN the worker's next tick asks the server instead of resting
        #expect(pulled.collections["books"]?.pulled == 1)
        let next = await worker.sync()
        #expect(next.outcome == .synced && next.requests == 1, "\(next.message)")
    }

    @Test func runsThatNeverRestOrReconcileAskAtEveryTick() async throws {
        let plain = try SyncDevice(user: user, server: server)
        try plain.saveBook("b1", title: "Dune")
        _ = await plain.sync()
        for _ in 0..<5 {
            let idle = await plain.sync()
            #expect(idle.outcome == .synced && idle.requests == 1, "\(idle.message)")
        }
        #expect(try plain.store.read { try $0.idleStreak() } == IdleStreak(), "an engine that never rests keeps no streak")

        let worker = try SyncDevice(user: user, server: server, store: plain.store, options: Self.resting())
        for _ in 0..<2 { _ = await worker.sync() }
        let reconciling = await worker.sync { $0.reconcilesNow = true }
        #expect(reconciling.outcome == .synced && reconciling.requests >= 1, "--reconcile asks the server, rest or not")
    }
}

extension SyncDevice {
    init(user: TestUser, server: KintoServer, store: ShelfStore, options: SyncOptions = SyncOptions(retry: .none)) throws {
        try self.init(user: user, baseURL: server.baseURL, store: store, options: options)
    }
}
