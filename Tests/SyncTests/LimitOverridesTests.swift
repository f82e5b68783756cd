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
}
