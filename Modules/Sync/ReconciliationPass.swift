import Foundation
import Storage

// MARK: - ReconciliationShape

/// How a reconciliation cuts a collection's stamps into ranges: the tunables of
/// `ReconciliationPass`, with the defaults `make bench-scale` measured.
public struct ReconciliationShape: Sendable, Equatable {
    /// Ranges a differing range is cut into, each holding about as many of this store's
    /// records. 16: at a million records a difference is three cuts deep, and the counts
    /// of one cut fit one `POST /batch` with room to spare.
    public var fanOut = 16
    /// A differing range is listed whole (ids and stamps) once this store holds at most
    /// this many records in it, or the server counts at most this many: ~19 KB of list.
    public var leafSize = 250
    /// How far behind where the last complete reconciliation ended the exact listing of
    /// recent records starts, in Kinto's milliseconds: a write transaction open longer than
    /// this, stamped before that end and committed after it, is found only by the counts or
    /// the sweep. An hour: sixty commit windows.
    public var recentMargin: Int64 = 3_600_000
    /// The sweep lists the older records whole, one slice per reconciliation, so that
    /// differences whose counts cancel out are found all the same: a slice is the
    /// collection's records ÷ this many passes (a month of daily reconciliations), within
    /// `sweepSizes`.
    public var sweepPasses = 30
    /// The fewest and the most records of one sweep slice: at least 250 (~19 KB, a small
    /// library is swept whole in a few days), at most 5,000 (~375 KB: a million records take
    /// 200 passes).
    public var sweepSizes = 250...5_000
    /// Ranges are cut at most this many times over; deeper, a range is listed.
    public var maximumDepth = 12
    /// A counted segment is cut before it is counted into parts of at least this many of
    /// this store's records (at most `fanOut` parts): each count costs the server a request's
    /// handling (~8 ms of Kinto's CPU), as much as listing a few hundred records, so a small
    /// library is counted in few parts. 2,000: a library of 10,000 in about five, one of
    /// 100,000 or more in sixteen.
    public var firstCutRecords = 2_000

    public init() {}

    /// A shape whose sweep slices are always `sweepSize` records.
    public init(fanOut: Int, leafSize: Int, recentMargin: Int64, sweepSize: Int) {
        self.fanOut = max(2, fanOut)
        self.leafSize = max(1, leafSize)
        self.recentMargin = max(0, recentMargin)
        self.sweepSizes = max(1, sweepSize)...max(1, sweepSize)
        self.firstCutRecords = self.leafSize
    }

    /// Into how many parts a counted segment holding `records` of this store's is cut
    /// before it is counted.
    public func firstCut(records: Int) -> Int {
        min(fanOut, max(1, records / max(1, firstCutRecords)))
    }

    /// How many records one sweep slice of a collection holding `records` lists.
    public func sweepSize(records: Int) -> Int {
        min(sweepSizes.upperBound, max(sweepSizes.lowerBound, records / max(1, sweepPasses)))
    }
}

// MARK: - RangeCheck

/// One range of stamps a reconciliation still has to compare, and how.
struct RangeCheck: Sendable, Equatable {
    enum Way: Sendable, Equatable {
        /// Count the server's live records in it (`HEAD`) and compare with this store's.
        case count
        /// List its ids and stamps (tombstones included) and compare them one by one.
        case list
    }

    var range: StampRange
    var way: Way
    /// How many times the range was cut from its segment.
    var depth = 0
}

// MARK: - ReconciliationPass

/// One reconciliation of a collection: the ranges of stamps up to the cursor it still has
/// to compare, in stamp order, and what each comparison turns a range into. A value: the
/// run asks the server and the store, and hands the answers here (`counted`, `listed`).
///
/// A pass covers `(0, end]`, `end` being the collection's cursor, in four segments:
/// - the records stamped since one margin before where the last pass ended are **listed**
///   whole: they are what late commits can still hide in (transactions shorter than the
///   margin), and listing them costs what changed since;
/// - one **sweep** slice of the older records (`ReconciliationShape.sweepSize(records:)`
///   of this store's) is listed whole too, the next slice by the next pass, round and round;
/// - the rest of the older records is **counted** — the server's live records per range
///   (`HEAD …/records?_since=A&_before=B`, `Total-Objects`) against this store's
///   (`StoreReader.serverLiveCount`) — in up to `fanOut` ranges of as many of this store's
///   records each (`firstCut`), and only a range whose counts differ is cut again, down to
///   ranges small enough to list (`leafSize`). An unchanged collection costs one `POST /batch`: the
///   counts and the two listings fit in one.
///
/// Counts find a missing record or a missed deletion (its live row stays at an old stamp,
/// one more here than there) wherever it is. They cannot see a missed update whose old and
/// new versions fall in one compared range, nor two opposite differences in one range
/// (a missing record beside a missed deletion; for two at random stamps, 1 in `fanOut`
/// at the first cut): those are found by the listing when they are recent, else by the
/// sweep within ⌈older records ÷ slice⌉ passes (30 up to 150,000 records).
///
/// Every stamp before the first range left is compared (`comparedThrough`): a run cut
/// short stores it, and the next run's pass starts from there (`init`'s `state`).
struct ReconciliationPass: Sendable, Equatable {
    /// The cursor: the pass compares every stamp up to it.
    let end: Int64
    /// Ranges still to compare, in stamp order.
    private(set) var checks: [RangeCheck]
    /// Where the next pass's sweep slice starts.
    let nextSweepStart: Int64
    let shape: ReconciliationShape

    /// The pass for `state`'s collection up to `cursor`: a new one, or the rest of one a
    /// run cut short (`reconcilingFrom`).
    /// - Parameters:
    ///   - sweepEnd: the stamp one sweep slice of this store's records after the one given
    ///     (nil when fewer follow).
    ///   - boundaries: stamps that cut a range into `fanOut` parts of as many of this store's
    ///     records each (`StoreReader.stampBoundaries`): a counted segment is cut once before
    ///     it is counted, so two opposite differences in it cancel out only when they fall in
    ///     one part.
    init(
        _ state: SyncState, cursor: Int64, shape: ReconciliationShape, sweepEnd: (Int64) throws -> Int64?,
        boundaries: (StampRange) throws -> [Int64]
    ) rethrows {
        self.end = cursor
        self.shape = shape
        let from = max(0, min(state.reconcilingFrom ?? 0, cursor))
        // NB: a store that never completed one (or was asked to compare everything again) lists everything.
        let recentFrom = state.reconciledThrough.map { max(0, min($0, cursor) - shape.recentMargin) } ?? 0
        var sweepStart = max(0, state.sweptThrough ?? 0)
        if sweepStart >= recentFrom { sweepStart = 0 }
        let sweepStop = recentFrom > sweepStart ? min(recentFrom, try sweepEnd(sweepStart) ?? recentFrom) : sweepStart
        nextSweepStart = sweepStop >= recentFrom ? 0 : sweepStop
        let segments: [(after: Int64, through: Int64, way: RangeCheck.Way)] = [
            (0, sweepStart, .count), (sweepStart, sweepStop, .list), (sweepStop, recentFrom, .count), (recentFrom, cursor, .list),
        ]
        var checks: [RangeCheck] = []
        for segment in segments {
            let after = max(segment.after, from)
            guard segment.through > after else { continue }
            let check = RangeCheck(range: StampRange(after: after, through: segment.through), way: segment.way)
            guard check.way == .count else {
                checks.append(check)
                continue
            }
            checks += Self.cut(check, at: try boundaries(check.range), keepingWay: true)
        }
        self.checks = checks
    }

    /// Every stamp up to this one is compared.
    var comparedThrough: Int64 { checks.first?.range.after ?? end }

    var isComplete: Bool { checks.isEmpty }

    /// The next ranges to ask about together: the first `limit`.
    func nextRound(limit: Int) -> [RangeCheck] { Array(checks.prefix(max(1, limit))) }

    /// The round's ranges are answered: each is replaced by what its answer left to compare
    /// (nothing, ranges cut from it, or the rest of a listing), in the same order.
    mutating func answered(_ round: [RangeCheck], leaving remaining: [[RangeCheck]]) {
        precondition(round.count == remaining.count && Array(checks.prefix(round.count)) == round,
                     "a round is the first ranges of the pass, answered in order")
        checks.replaceSubrange(0..<round.count, with: remaining.flatMap { $0 })
    }

    // MARK: Decisions

    /// What a counted range leaves to compare.
    enum Verdict: Equatable {
        /// The counts agree: nothing.
        case agrees
        /// List it whole.
        case list
        /// Cut it at these stamps and count each part.
        case cut
    }

    /// The verdict on `check` once counted: this store holds `local` of the server's live
    /// records in it, the server says `server` (nil when it gave no count: listed whole,
    /// as every reconciliation did before).
    func verdict(on check: RangeCheck, local: Int, server: Int?) -> Verdict {
        guard let server else { return .list }
        if server == local { return .agrees }
        if local <= shape.leafSize || server <= shape.leafSize || check.depth >= shape.maximumDepth || check.range.isEmpty {
            return .list
        }
        return .cut
    }

    /// The ranges `check` is cut into at `boundaries` (ascending stamps inside it, as
    /// `StoreReader.stampBoundaries` gives them): each from one boundary, excluded, to the
    /// next, included. Listed instead when no boundary cuts it.
    func cut(_ check: RangeCheck, at boundaries: [Int64]) -> [RangeCheck] {
        Self.cut(check, at: boundaries, keepingWay: false)
    }

    /// - Parameter keepingWay: a range no boundary cuts stays as it was (a segment too small
    ///   to cut is counted whole); otherwise it is listed.
    private static func cut(_ check: RangeCheck, at boundaries: [Int64], keepingWay: Bool) -> [RangeCheck] {
        let inside = boundaries.filter { check.range.contains($0) }
        guard !inside.isEmpty else { return [RangeCheck(range: check.range, way: keepingWay ? check.way : .list, depth: check.depth)] }
        var parts: [RangeCheck] = []
        var after = check.range.after
        for boundary in inside where boundary > after {
            parts.append(RangeCheck(range: StampRange(after: after, through: boundary), way: .count, depth: check.depth + 1))
            after = boundary
        }
        if after < check.range.last {
            parts.append(RangeCheck(range: StampRange(after: after, before: check.range.before), way: .count, depth: check.depth + 1))
        }
        return parts
    }

    /// What a listed range leaves: the rest after the highest stamp listed, when the
    /// server said more follow; nothing else (a list that does not move on is done).
    /// - Returns: the part of the range the listing covered, and the rest.
    static func listed(_ check: RangeCheck, highest: Int64?, morePagesFollow: Bool) -> (covered: StampRange, rest: RangeCheck?) {
        guard morePagesFollow, let highest, check.range.contains(highest), highest < check.range.last else {
            return (check.range, nil)
        }
        let covered = StampRange(after: check.range.after, through: highest)
        return (covered, RangeCheck(range: StampRange(after: highest, before: check.range.before), way: .list, depth: check.depth))
    }
}
