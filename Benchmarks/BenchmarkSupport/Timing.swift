import Foundation

// MARK: - Timing
//
// How the in-process benchmarks time and print their figures.

public func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

public func format(_ duration: Duration) -> String {
    let value = seconds(duration)
    return value >= 1 ? String(format: "%.3f s", value) : String(format: "%.2f ms", value * 1000)
}

/// The median of `runs` timings, so one scheduler hiccup does not decide the figure.
public func median<T>(runs: Int = 7, _ body: () throws -> T) rethrows -> (Duration, T) {
    let clock = ContinuousClock()
    var timings: [Duration] = []
    var result: T?
    for _ in 0..<runs {
        let start = clock.now
        result = try body()
        timings.append(clock.now - start)
    }
    // NB: the force unwrap is safe: `runs` is at least 1, so the loop assigned `result`.
    return (timings.sorted()[timings.count / 2], result!)
}

public func report(_ label: String, _ duration: Duration, _ detail: String = "") {
    let padded = label.padding(toLength: 52, withPad: " ", startingAt: 0)
    print("\(padded) \(format(duration).leftPadded(to: 10))\(detail.isEmpty ? "" : "   \(detail)")")
}

extension String {
    public func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}

/// The async counterpart of `median`.
public func median<T>(runs: Int = 7, _ body: () async throws -> T) async rethrows -> (Duration, T) {
    let clock = ContinuousClock()
    var timings: [Duration] = []
    var result: T?
    for _ in 0..<runs {
        let start = clock.now
        result = try await body()
        timings.append(clock.now - start)
    }
    // NB: the force unwrap is safe: `runs` is at least 1, so the loop assigned `result`.
    return (timings.sorted()[timings.count / 2], result!)
}
