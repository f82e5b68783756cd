import Foundation
import Synchronization

// MARK: - RunLock

/// One sync runner per account: an exclusive `flock(2)` on the account's lock file.
///
/// The kernel drops the lock when the process exits, however it exits (`kill -9`
/// included), so a crashed run never leaves a stale lock behind; the pid written into
/// the file is only there to tell an operator who holds it. A clean release empties
/// the file, so a pid found there by the next holder means the last run was stopped
/// before it finished (`kill -9`, a crash, a power cut): `previousRunUnfinished`. A
/// holder that does not act on that (a read's refresh, which does not check the store)
/// passes it on: its release leaves the file marked until a holder acknowledges it.
public final class RunLock: Sendable {
    private let descriptor: Mutex<Int32?>
    public let path: String
    /// The previous holder did not release the lock cleanly (or passed that on).
    public let previousRunUnfinished: Bool
    private let acknowledged = Mutex(false)

    private init(descriptor: Int32, path: String, previousRunUnfinished: Bool) {
        self.descriptor = Mutex(descriptor)
        self.path = path
        self.previousRunUnfinished = previousRunUnfinished
    }

    /// Says this holder dealt with an unfinished previous run (it checked the store),
    /// so the release no longer passes the mark on.
    public func acknowledgeUnfinishedRun() {
        acknowledged.withLock { $0 = true }
    }

    deinit { release() }

    /// Takes the lock without waiting.
    /// - Returns: the held lock, or nil when another run holds it.
    /// - Throws: `RunLockError` when the file can't be opened.
    public static func acquire(at url: URL) throws(RunLockError) -> RunLock? {
        let directory = url.deletingLastPathComponent().path
        if !FileManager.default.fileExists(atPath: directory) {
            do {
                try FileManager.default.createDirectory(
                    atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw RunLockError(path: url.path, reason: "cannot create \(directory): \(error.localizedDescription)")
            }
        }
        let fd = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw RunLockError(path: url.path, reason: String(cString: strerror(errno))) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let error = errno
            close(fd)
            if error == EWOULDBLOCK { return nil }
            throw RunLockError(path: url.path, reason: String(cString: strerror(error)))
        }
        var previous = [UInt8](repeating: 0, count: 32)
        let unfinished = pread(fd, &previous, previous.count, 0) > 0
        let pid = "\(getpid())\n"
        _ = ftruncate(fd, 0)
        _ = pid.withCString { pwrite(fd, $0, strlen($0), 0) }
        return RunLock(descriptor: fd, path: url.path, previousRunUnfinished: unfinished)
    }

    /// The pid recorded by whoever holds (or last held) the lock, for messages.
    public static func holder(of url: URL) -> Int32? {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return nil }
        return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Releases the lock. Safe to call more than once.
    public func release() {
        descriptor.withLock { fd in
            guard let open = fd else { return }
            // Empty: the next holder knows this run finished — unless an unfinished
            // run before it is still unacknowledged, which the next holder must see.
            _ = ftruncate(open, 0)
            if previousRunUnfinished && !acknowledged.withLock({ $0 }) {
                _ = "unfinished\n".withCString { pwrite(open, $0, strlen($0), 0) }
            }
            flock(open, LOCK_UN)
            close(open)
            fd = nil
        }
    }
}

// MARK: - RunLockError

public struct RunLockError: Error, Equatable, Sendable, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var description: String { "cannot lock \(path): \(reason)" }
}
