import Foundation
import Terminal
import Testing
import TestSupport

// MARK: - Frame snapshots

/// Compares a frame, as the lines of text it shows, with `Fixtures/live-screens/<name>.txt`.
/// With `SHELF_RECORD_FIXTURES=1` the file is written instead and the test fails, so a
/// recording is never taken for a pass.
enum FrameSnapshot {
    static func text(of frame: Frame) -> String {
        (0..<frame.rows).map { frame.line($0) }.joined(separator: "\n") + "\n"
    }

    static func expect(_ frame: Frame, matches name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let text = text(of: frame)
        if ProcessInfo.processInfo.environment["SHELF_RECORD_FIXTURES"] == "1" {
            try Data(text.utf8).write(to: FixtureFiles.url("live-screens/\(name).txt"))
            Issue.record("recorded live-screens/\(name).txt; review it and run again without SHELF_RECORD_FIXTURES", sourceLocation: sourceLocation)
            return
        }
        let expected = String(decoding: try FixtureFiles.data("live-screens/\(name).txt"), as: UTF8.self)
        #expect(text == expected, "live-screens/\(name).txt:\n\(text)", sourceLocation: sourceLocation)
    }
}
