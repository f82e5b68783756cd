import Foundation
import Services

// MARK: - LimitOverrides

/// The limits a person may raise or lower through the environment, read the same way by
/// both apps:
///
/// | variable                 | limit                                  | default | range        |
/// |--------------------------|----------------------------------------|---------|--------------|
/// | `SHELF_MAX_RESPONSE_MB`  | one response, after decompression      | 64      | 1…4096       |
/// | `SHELF_MAX_RECORD_KB`    | one pulled record (larger: skipped)    | 1024    | 1…1048576    |
/// | `SHELF_STALL_SECONDS`    | a request with no byte of answer       | 10      | 1…600        |
/// | `SHELF_READ_SECONDS`     | a read's wait for the server (`shelf`) | 1       | 1…60         |
///
/// A value that is not a whole number in range is a configuration error (exit 78),
/// never trapped on and never silently ignored.
public struct LimitOverrides: Sendable, Equatable {
    /// Bytes of one response body after content decoding.
    public var maximumResponseBytes: Int
    /// Bytes of one pulled record.
    public var maximumRecordBytes: Int
    /// How long a request may go without a byte of answer, or under the slow-transfer
    /// rate, before it is given up (`Timeouts.stall`). A server that is only busy (a
    /// shared host at its peak, a fleet of workers saturating it) can be given longer
    /// than 10 s instead of being asked again, which adds to its queue; a server known to
    /// be quick can be given up on sooner.
    public var stall: Duration
    /// How long a read (`shelf books`, `cart`, …) waits for the server, all its refreshes
    /// together, before it shows what is local (`ReadBudget`). A second answers a nearby
    /// server; a slow link (a satellite hop, a congested mobile network) or a server busy at
    /// its peak may need longer for the reader to see fresh data at all.
    public var readWait: Duration

    /// The read wait when the environment does not set one: a person typing `shelf books`
    /// gets an answer within about a second, whatever the server does.
    public static let defaultReadWait: Duration = .seconds(1)

    public init(environment: [String: String]) throws(LimitOverrideError) {
        maximumResponseBytes = try Self.read(
            "SHELF_MAX_RESPONSE_MB", in: environment, range: 1...4_096, unit: 1 << 20,
            default: CurlTransport.Configuration.defaultMaximumResponseBytes)
        maximumRecordBytes = try Self.read(
            "SHELF_MAX_RECORD_KB", in: environment, range: 1...1_048_576, unit: 1 << 10,
            default: SyncOptions().maximumRecordBytes)
        let defaultStall = Int(Timeouts.default.stall.components.seconds)
        stall = .seconds(try Self.read("SHELF_STALL_SECONDS", in: environment, range: 1...600, unit: 1, default: defaultStall))
        let defaultRead = Int(Self.defaultReadWait.components.seconds)
        readWait = .seconds(try Self.read("SHELF_READ_SECONDS", in: environment, range: 1...60, unit: 1, default: defaultRead))
    }

    /// `base` with this stall bound. The whole request's bound is raised to it when it is
    /// shorter, so that it never ends a request the stall bound still allows.
    public func timeouts(_ base: Timeouts = .default) -> Timeouts {
        var timeouts = base
        timeouts.stall = stall
        timeouts.request = max(base.request, stall)
        return timeouts
    }

    /// Whether the transport's limit is at its default (the shared transport will do; the
    /// stall bound is each request's own, `timeouts(_:)`).
    public var isDefault: Bool {
        maximumResponseBytes == CurlTransport.Configuration.defaultMaximumResponseBytes
    }

    /// The transport these limits call for: nil (the process' shared one, trusting
    /// `caFile` when given — see `AccountSync`) unless a limit was raised.
    public func transport(caFile: String?) -> (any HTTPTransport)? {
        isDefault ? nil : CurlTransport(configuration: .init(caBundlePath: caFile, maximumResponseBytes: maximumResponseBytes))
    }

    private static func read(
        _ name: String, in environment: [String: String], range: ClosedRange<Int>, unit: Int, default value: Int
    ) throws(LimitOverrideError) -> Int {
        guard let text = environment[name] else { return value }
        // NB: `Int(_:)` refuses what does not fit, and the range keeps `× unit` far
        // from overflow (4096 MiB, 1 GiB).
        guard text.utf8.count <= 20, let number = Int(text.trimmingCharacters(in: .whitespaces)), range.contains(number) else {
            throw LimitOverrideError(variable: name, value: String(text.prefix(40)), range: range)
        }
        return number * unit
    }
}

// MARK: - LimitOverrideError

public struct LimitOverrideError: Error, Sendable, Equatable, CustomStringConvertible {
    public let variable: String
    public let value: String
    public let range: ClosedRange<Int>

    public var description: String {
        "\(variable)='\(value)' is not a whole number from \(range.lowerBound) to \(range.upperBound)"
    }
}
