import Domain
import Foundation

// MARK: - PushSchedule

/// The push's scheduling as explicit state: how many batches are in flight, which
/// collections they write to, how many rounds are left, how many answered rounds made
/// no progress, and what stopped the push. `OutboxPush.pushAll` asks it for the next
/// action (`next()`), does the I/O that action names, and tells it what happened;
/// nothing here touches the store or the network, so every path is tested on its own
/// (`PushScheduleTests`).
struct PushSchedule {
    /// What the push does next.
    enum Action: Equatable {
        /// Read the next batch of waiting changes (none of a `busy` collection), mark
        /// it sent and send it (`sent(to:)`), or say there was none (`nothingToSend()`).
        case sendNextBatch
        /// Wait for one batch in flight to answer (`answered(_:)`).
        case awaitAnswer
        /// Every batch is answered and nothing more leaves. `roundsSpent`: the bound on
        /// rounds ended the push, so changes may still wait.
        case finish(roundsSpent: Bool)
        /// Every batch in flight is answered; the push fails with `stop`.
        case fail
    }

    /// What an answered round leads to, once its answers are stored.
    enum AfterAnswer: Equatable {
        case carryOn
        /// The round made no progress: wait before the next (the `attempt`th) round.
        case retry(attempt: Int)
        /// Too many rounds in a row made no progress: the push stops.
        case gaveUp(attempts: Int)
    }

    /// Collections a batch in flight writes to: no second batch writes to them.
    private(set) var busy: Set<CollectionName> = []
    private(set) var inFlight = 0
    private(set) var roundsLeft: Int
    private(set) var failedRounds = 0
    /// The first reason the push stops; batches in flight are still answered and stored.
    private(set) var stop: (any Error)?
    /// Nothing could be sent since the last answer: only an answer can change that.
    private var drained = false

    let maximumInFlight: Int
    let maximumFailedRounds: Int

    /// - Parameters:
    ///   - rounds: the most batches the push may read (a merged change is pushed again,
    ///     so a server that keeps changing must not keep the run alive forever).
    ///   - maximumInFlight: the most batches waiting for their answers at once.
    ///   - maximumFailedRounds: answered rounds in a row without progress before giving up.
    init(rounds: Int, maximumInFlight: Int, maximumFailedRounds: Int) {
        roundsLeft = rounds
        self.maximumInFlight = max(1, maximumInFlight)
        self.maximumFailedRounds = maximumFailedRounds
    }

    // MARK: Deciding

    func next() -> Action {
        if stop == nil, !drained, inFlight < maximumInFlight, roundsLeft > 0 { return .sendNextBatch }
        if inFlight > 0 { return .awaitAnswer }
        return stop == nil ? .finish(roundsSpent: roundsLeft == 0) : .fail
    }

    // MARK: Sending

    /// A batch was read: it uses a round, whether or not any of it is still sendable.
    mutating func batchRead() {
        roundsLeft -= 1
    }

    /// Nothing waits that can be sent now.
    mutating func nothingToSend() {
        drained = true
    }

    /// A batch left, writing to `collections`.
    mutating func sent(to collections: Set<CollectionName>) {
        busy.formUnion(collections)
        inFlight += 1
    }

    // MARK: Answers

    /// A batch writing to `collections` answered (or failed).
    mutating func answered(_ collections: Set<CollectionName>) {
        inFlight -= 1
        busy.subtract(collections)
        drained = false
    }

    /// The push stops for `error`; the first reason given is kept.
    mutating func stopping(_ error: any Error) {
        stop = stop ?? error
    }

    /// An answered round's answers were stored. - Returns: what follows.
    mutating func stored(madeProgress: Bool) -> AfterAnswer {
        if madeProgress {
            failedRounds = 0
            return .carryOn
        }
        failedRounds += 1
        return failedRounds < maximumFailedRounds ? .retry(attempt: failedRounds) : .gaveUp(attempts: failedRounds)
    }
}
