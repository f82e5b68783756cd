import Testing
import Vocabulary

/// What Shelf reads from a server's `GET /v1/`, and the limits it derives.
@Suite("Server capabilities: rules")
struct ServerCapabilitiesRulesTests {
    @Test(arguments: [("1.23", true), ("1.0", true), ("1", true), ("2.0", false), ("", false), ("one", false)])
    func onlyAPIVersion1IsCompatible(version: String, compatible: Bool) {
        #expect(ServerCapabilities(httpAPIVersion: version).isCompatible == compatible)
    }

    @Test func batchesFollowTheServerWithinSaneBounds() {
        #expect(ServerCapabilities(httpAPIVersion: "1.23", batchMaxRequests: 10).batchSize(fallback: 25) == 10)
        #expect(ServerCapabilities(httpAPIVersion: "1.23", batchMaxRequests: 5_000).batchSize(fallback: 25) == 100)
        #expect(ServerCapabilities(httpAPIVersion: "1.23", batchMaxRequests: 0).batchSize(fallback: 25) == 25)
        #expect(ServerCapabilities(httpAPIVersion: "1.23", batchMaxRequests: -3).batchSize(fallback: 25) == 25)
        #expect(ServerCapabilities(httpAPIVersion: "1.23").batchSize(fallback: 25) == 25)
    }

    @Test func pagesStayWithinTheServersLimit() {
        #expect(ServerCapabilities(httpAPIVersion: "1.23", paginateBy: 5).pageSize(wanted: 10_000) == 5)
        #expect(ServerCapabilities(httpAPIVersion: "1.23", paginateBy: 50_000).pageSize(wanted: 10_000) == 10_000)
        #expect(ServerCapabilities(httpAPIVersion: "1.23").pageSize(wanted: 100) == 100)
    }

    @Test func theDefaultBucketAndAccountsAreCapabilities() {
        let plain = ServerCapabilities(httpAPIVersion: "1.23", capabilities: ["default_bucket"])
        #expect(plain.hasDefaultBucket && !plain.hasAccounts)
        #expect(!ServerCapabilities(httpAPIVersion: "1.23", capabilities: ["accounts"]).hasDefaultBucket)
    }
}
