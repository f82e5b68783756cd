import Domain

// MARK: - FakeSyncStatusProvider

/// A `SyncStatusProviding` that answers a fixed status unless a reply is queued.
public actor FakeSyncStatusProvider: SyncStatusProviding {
    public private(set) var status: SyncStatus
    public private(set) var callCount = 0

    private var replies = ReplyQueue<SyncStatus>()

    public init(status: SyncStatus = SyncStatus()) {
        self.status = status
    }

    public func enqueue(_ reply: FakeReply<SyncStatus>) {
        replies.enqueue(reply)
    }

    public func setStatus(_ status: SyncStatus) {
        self.status = status
    }

    public func syncStatus() async throws -> SyncStatus {
        callCount += 1
        if let reply = replies.next() { return try await reply.resolve() }
        return status
    }
}
