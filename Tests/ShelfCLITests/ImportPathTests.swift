import Foundation
import Testing
import TestSupport

/// `shelf import` of something that is not a readable file says what it is, in words
/// (never Foundation's `NSCocoaErrorDomain error 256`), exit 66, and writes nothing.
@Suite("shelf import: paths that are no file")
struct ImportPathTests {
    @Test func aFolderAMissingFileAndADeviceAreNamedInWords() async throws {
        let sandbox = try ShelfSandbox()
        let cases: [(path: String, words: String)] = [
            (sandbox.root.path, "it is a folder, not a file"),
            ("/tmp", "it is a folder, not a file"),
            (sandbox.root.appendingPathComponent("gone.csv").path, "no such file"),
            ("/dev/null", "not a regular file"),
        ]
        for (path, words) in cases {
            let run = try await sandbox.run("import", path)
            #expect(run.status == 66, "\(run)")
            #expect(run.stdout.isEmpty, "\(run)")
            #expect(run.stderr.hasPrefix("Error: ") && run.stderr.contains(words), "\(run)")
            #expect(!run.stderr.contains("NSCocoaErrorDomain") && !run.stderr.contains("error 256"), "\(run)")
        }
        let books = try #require(try await sandbox.run("--json", "books").json()["books"] as? [Any])
        #expect(books.isEmpty, "nothing written")
    }
}
