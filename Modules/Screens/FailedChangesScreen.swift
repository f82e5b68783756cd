import Domain
import Foundation
import Sync

// MARK: - FailedChangesScreen

/// The changes the server refused for good (dead letters), as `shelf failed` lists
/// them, with the id `shelf retry` and `shelf discard` take.
public struct FailedChangesScreen: RenderableScreen, Hashable {
    public struct Entry: Encodable, Hashable, Sendable {
        public let id: Int64
        public let collection: String
        public let recordID: String
        /// `create`, `update` or `delete`.
        public let change: String
        public let status: Int
        public let reason: String
        public let failedAt: String

        init(_ change: FailedChange) {
            id = change.id
            collection = change.collection.rawValue
            recordID = change.recordID
            self.change = change.change
            status = change.status
            reason = change.reason
            failedAt = Wording.timestamp(change.failedAt)
        }
    }

    public let failed: [Entry]

    public init(_ changes: [FailedChange]) {
        failed = changes.map(Entry.init)
    }

    public func renderText(_ options: RenderOptions) -> String {
        var text = ScreenText(options)
        guard !failed.isEmpty else {
            text.line("No failed changes.")
            return text.text
        }
        var table = TextTable([.init("ID", .right), .init("RECORD"), .init("CHANGE"), .init("STATUS", .right),
                               .init("REASON"), .init("FAILED")])
        for entry in failed {
            table.append([.init(String(entry.id)), .init("\(entry.collection)/\(entry.recordID)"), .init(entry.change),
                          .init(String(entry.status), .error), .init(TextWidth.excerpt(entry.reason, limit: 60)), .init(entry.failedAt)])
        }
        text.table(table)
        text.line(Wording.count(failed.count, "failed change") + "; 'shelf retry ID' sends one again, 'shelf discard ID' drops it", .quiet)
        return text.text
    }

    private enum CodingKeys: String, CodingKey { case failed }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(failed, forKey: .failed)
    }
}
