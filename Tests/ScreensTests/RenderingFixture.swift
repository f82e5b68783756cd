import Foundation
import Presentation
import Screens
import Testing
import TestSupport

// MARK: - Rendering fixtures

/// Compares a screen's text and JSON with `Fixtures/rendering/<name>.txt` and
/// `<name>.json`, files a reviewer can read as they are.
///
/// With `SHELF_RECORD_FIXTURES=1` in the environment the files are written from the
/// current output instead, and the test fails so a recording is never taken for a
/// pass: read the new files, then run again without the variable.
enum RenderingFixture {
    static func expect(
        _ screen: some RenderableScreen, matches name: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let text = screen.renderText(.plain)
        let json = try screen.renderJSON()
        #expect(!text.contains("\u{1B}"), "plain text must hold no escape codes", sourceLocation: sourceLocation)

        if ProcessInfo.processInfo.environment["SHELF_RECORD_FIXTURES"] == "1" {
            try Data(text.utf8).write(to: FixtureFiles.url("rendering/\(name).txt"))
            try Data(json.utf8).write(to: FixtureFiles.url("rendering/\(name).json"))
            Issue.record("recorded rendering/\(name).{txt,json}; review them and run again without SHELF_RECORD_FIXTURES", sourceLocation: sourceLocation)
            return
        }
        let expectedText = String(decoding: try FixtureFiles.data("rendering/\(name).txt"), as: UTF8.self)
        let expectedJSON = String(decoding: try FixtureFiles.data("rendering/\(name).json"), as: UTF8.self)
        #expect(text == expectedText, "rendering/\(name).txt", sourceLocation: sourceLocation)
        #expect(json == expectedJSON, "rendering/\(name).json", sourceLocation: sourceLocation)
    }
}
