import Foundation
import Testing

/// libcurl is opened by the first transfer, not at start: a local read never loads it
/// (nor OpenSSL, GnuTLS, LDAP… that it links), a sync does. glibc's `LD_DEBUG=libs`
/// names every library the loader looks for, `dlopen`'s included.
@Suite("shelf: libcurl is loaded only to reach a server")
struct LibcurlLoadingTests {
    let sandbox: ShelfSandbox

    init() throws {
        sandbox = try ShelfSandbox()
    }

    @Test func aLocalReadNeverLoadsLibcurl() throws {
        let list = try sandbox.runBinary("books", environment: ["LD_DEBUG": "libs"])

        #expect(list.status == 0, "\(list)")
        #expect(list.stdout == "No books on the shelf yet.\n")
        #expect(list.stderr.contains("find library="), "the loader's trace is there to read: \(list.stderr.prefix(300))")
        #expect(!list.stderr.contains("libcurl"))
    }

    @Test func aSyncLoadsItAndFailsAsBeforeWhenNoServerAnswers() throws {
        let add = try sandbox.runBinary("account", "add", "home", "--server", try unreachableServer(), "--user", "reader", "--no-verify",
                                  environment: ["SHELF_PASSWORD": "pw"])
        #expect(add.status == 0, "\(add)")

        let sync = try sandbox.runBinary("sync", environment: ["SHELF_PASSWORD": "pw", "LD_DEBUG": "libs"])

        #expect(sync.stderr.contains("find library=libcurl.so.4"), "\(sync.stderr.prefix(300))")
        #expect(sync.status == 75, "\(sync)")
        // libcurl's own words: the transfer went through the library it loaded.
        #expect(sync.stderr.contains("Error: not synced: ") && sync.stderr.contains("connection refused: is the server running? (Failed to connect to 127.0.0.1"), "\(sync.stderr.suffix(600))")
    }
}
