import Foundation
import Services
import Sync
import Testing

/// Size limits raised through the environment: whole numbers in range, or a typed
/// configuration error — never a trap, never silently ignored.
@Suite("Limit overrides from the environment")
struct LimitOverridesTests {
    @Test(arguments: [
        ([:], 64 << 20, 1 << 20),
        (["SHELF_MAX_RESPONSE_MB": "128"], 128 << 20, 1 << 20),
        (["SHELF_MAX_RECORD_KB": "4096"], 64 << 20, 4 << 20),
        (["SHELF_MAX_RESPONSE_MB": " 4096 ", "SHELF_MAX_RECORD_KB": "1"], 4_096 << 20, 1 << 10),
    ] as [([String: String], Int, Int)])
    func valuesInRangeRaiseTheLimits(_ environment: [String: String], _ response: Int, _ record: Int) throws {
        let limits = try LimitOverrides(environment: environment)
        #expect(limits.maximumResponseBytes == response)
        #expect(limits.maximumRecordBytes == record)
        #expect((limits.transport(caFile: nil) == nil) == (response == 64 << 20))
    }

    @Test(arguments: [
        ["SHELF_MAX_RESPONSE_MB": "0"], ["SHELF_MAX_RESPONSE_MB": "4097"], ["SHELF_MAX_RESPONSE_MB": "9223372036854775807"],
        ["SHELF_MAX_RESPONSE_MB": "99999999999999999999999"], ["SHELF_MAX_RESPONSE_MB": "1e3"], ["SHELF_MAX_RECORD_KB": "-1"],
        ["SHELF_MAX_RECORD_KB": ""], ["SHELF_MAX_RECORD_KB": "lots"],
    ])
    func anythingElseIsAConfigurationError(_ environment: [String: String]) {
        #expect(throws: LimitOverrideError.self) { try LimitOverrides(environment: environment) }
    }

    /// `SHELF_STALL_SECONDS` sets each request's stall bound, and raises the whole
    /// request's bound to it when that is shorter.
    @Test(arguments: [
        ([:], 10, 60), (["SHELF_STALL_SECONDS": "30"], 30, 60), (["SHELF_STALL_SECONDS": "1"], 1, 60),
        (["SHELF_STALL_SECONDS": " 600 "], 600, 600),
    ] as [([String: String], Int64, Int64)])
    func theStallBoundComesFromTheEnvironment(_ environment: [String: String], _ stall: Int64, _ request: Int64) throws {
        let limits = try LimitOverrides(environment: environment)
        #expect(limits.stall == .seconds(stall))
        #expect(limits.timeouts().stall == .seconds(stall))
        #expect(limits.timeouts().request == .seconds(request))
        #expect(limits.timeouts().connect == Timeouts.default.connect)
        let read = limits.timeouts(Timeouts(connect: .seconds(5), request: .seconds(30)))
        #expect(read.connect == .seconds(5) && read.request == .seconds(max(30, stall)))
    }

    /// `SHELF_READ_SECONDS` sets how long a read waits for the server: a second unless set.
    @Test(arguments: [([:], 1), (["SHELF_READ_SECONDS": "10"], 10), (["SHELF_READ_SECONDS": " 60 "], 60)] as [([String: String], Int64)])
    func theReadWaitComesFromTheEnvironment(_ environment: [String: String], _ seconds: Int64) throws {
        #expect(try LimitOverrides(environment: environment).readWait == .seconds(seconds))
    }

    @Test(arguments: ["0", "61", "1.5", "", "ten", "-3"])
    func aReadWaitOutOfRangeIsAConfigurationError(_ value: String) {
        #expect(throws: LimitOverrideError.self) { try LimitOverrides(environment: ["SHELF_READ_SECONDS": value]) }
    }

    @Test(arguments: ["0", "601", "1.5", "", "ten", "-3"])
    func aStallBoundOutOfRangeIsAConfigurationError(_ value: String) {
        #expect(throws: LimitOverrideError.self) { try LimitOverrides(environment: ["SHELF_STALL_SECONDS": value]) }
    }
}
