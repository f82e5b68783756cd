import Foundation

// MARK: - Fixture files

/// Finds files under the repository's `Fixtures/` folder by path, wherever the test
/// binary runs from: tests read fixture data as files, never as inlined strings.
public enum FixtureFiles {
    /// The repository root: the folder holding `Package.swift`, found from this file.
    public static let repositoryRoot: URL = {
        var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while url.path != "/" {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
                return url
            }
            url.deleteLastPathComponent()
        }
        preconditionFailure("Package.swift not found above \(#filePath)")
    }()

    public static func url(_ relativePath: String) -> URL {
        repositoryRoot.appendingPathComponent("Fixtures").appendingPathComponent(relativePath)
    }

    public static func data(_ relativePath: String) throws -> Data {
        try Data(contentsOf: url(relativePath))
    }
}
