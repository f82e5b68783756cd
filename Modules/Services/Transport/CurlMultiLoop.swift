import CCurl
import Foundation
import Synchronization

// MARK: - CurlMultiLoop

/// The thread that owns the curl multi handle and every easy handle: the only place
/// libcurl is called, apart from `curl_multi_wakeup` (documented as callable from any thread).
///
/// Other threads talk to it through `state`: they queue jobs and cancellations and wake
/// it up; it adds and removes transfers, drives them with `curl_multi_perform`, resumes
/// finished ones and sleeps in `curl_multi_poll`.
final class CurlMultiLoop: Sendable {
    private let configuration: CurlTransport.Configuration
    /// Nil only when libcurl could not be loaded or could not create a multi handle (out
    /// of memory); every request then fails with a transport error that says which,
    /// instead of the process crashing.
    private let multi: MultiHandle?
    private let state = Mutex(State())
    private let nextTransferID = Atomic<UInt64>(1)

    private struct State {
        var incoming: [CurlJob] = []
        var cancellations: [UInt64] = []
        var isShuttingDown = false
        /// Set by the loop thread just before it destroys the multi handle: from then on
        /// nobody may call `curl_multi_wakeup`.
        var isClosed = false
    }

    /// The multi handle's address, shareable so any thread can call `curl_multi_wakeup`.
    /// NB: `@unchecked` is sound because every other use of the handle happens on the
    /// loop thread, and wakeups happen under `state`'s lock while `isClosed` is false,
    /// so none can race the handle's cleanup.
    private struct MultiHandle: @unchecked Sendable {
        let raw: UnsafeMutableRawPointer
    }

    init(configuration: CurlTransport.Configuration) {
        CurlGlobal.initializeOnce()
        self.configuration = configuration
        if let raw = shelf_curl_multi_init() {
            _ = shelf_curl_multi_setopt_long(raw, CURLMOPT_MAXCONNECTS, max(1, configuration.maximumIdleConnections))
            _ = shelf_curl_multi_setopt_long(raw, CURLMOPT_MAX_HOST_CONNECTIONS, max(0, configuration.maximumConnectionsPerHost))
            self.multi = MultiHandle(raw: raw)
        } else {
            self.multi = nil
        }
        guard let multi else { return }
        Thread { [self] in self.run(multi: multi.raw) }.start()
    }

    func makeTransferID() -> UInt64 {
        nextTransferID.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    // MARK: Called from any thread

    /// Hands a job to the loop, unless its task was cancelled first.
    func submit(_ job: CurlJob, ticket: CurlTicket) {
        guard multi != nil else {
            job.continuation.resume(throwing: APIError.transport(TransportFailure(
                kind: .other, method: job.request.method, url: job.request.url,
                message: shelf_curl_load_error().map { String(cString: $0) } ?? "libcurl could not create its multi handle")))
            return
        }
        // NB: the ticket's lock is held while queueing, so a cancellation can only be
        // queued after its job: the loop always sees the job first.
        let queued = ticket.phase.withLock { phase -> Bool in
            guard phase == .created else { return false }
            phase = .submitted
            return enqueue { $0.incoming.append(job) }
        }
        if !queued { job.continuation.resume(throwing: CancellationError()) }
    }

    /// Aborts a job: before submission it will never be sent; once submitted, the loop
    /// removes its transfer and resumes it with `CancellationError`.
    func cancel(_ ticket: CurlTicket) {
        ticket.phase.withLock { phase in
            switch phase {
            case .created: phase = .cancelled
            case .submitted: _ = enqueue { $0.cancellations.append(ticket.id) }
            case .cancelled: break
            }
        }
    }

    func shutDown() {
        _ = enqueue { $0.isShuttingDown = true }
    }

    /// Changes the shared state and wakes the loop, under one lock.
    /// - Returns: false when the loop has closed (nothing was changed).
    private func enqueue(_ change: (inout State) -> Void) -> Bool {
        state.withLock { state in
            guard !state.isClosed, !state.isShuttingDown, let multi else { return false }
            change(&state)
            _ = shelf_curl_multi_wakeup(multi.raw)
            return true
        }
    }

    // MARK: The loop thread

    private func run(multi: UnsafeMutableRawPointer) {
        // Named for debuggers and `top -H`: Foundation passes a name to the OS thread
        // only when the thread names itself.
        Thread.current.name = "shelf-curl"
        var transfers: [UInt64: CurlTransfer] = [:]
        var transferIDs: [UnsafeMutableRawPointer: UInt64] = [:]
        var idleHandles: [UnsafeMutableRawPointer] = []
        let keptHandles = max(1, configuration.maximumIdleConnections)

        func recycle(_ easy: UnsafeMutableRawPointer) {
            // The connection pool belongs to the multi handle, so a reset handle loses nothing.
            if idleHandles.count < keptHandles {
                shelf_curl_easy_reset(easy)
                idleHandles.append(easy)
            } else {
                shelf_curl_easy_cleanup(easy)
            }
        }

        func end(_ id: UInt64, _ finish: (CurlTransfer) -> Void) {
            guard let transfer = transfers.removeValue(forKey: id) else { return }
            transferIDs[transfer.easy] = nil
            shelf_curl_multi_remove_handle(multi, transfer.easy)
            finish(transfer)
            recycle(transfer.easy)
        }

        while true {
            let (incoming, cancellations, shuttingDown) = state.withLock { state in
                defer {
                    state.incoming.removeAll()
                    state.cancellations.removeAll()
                }
                if state.isShuttingDown { state.isClosed = true }
                return (state.incoming, state.cancellations, state.isShuttingDown)
            }

            for job in incoming {
                guard let easy = idleHandles.popLast() ?? shelf_curl_easy_init() else {
                    job.continuation.resume(throwing: APIError.transport(TransportFailure(
                        kind: .other, method: job.request.method, url: job.request.url,
                        message: "libcurl could not create a handle")))
                    continue
                }
                let transfer = CurlTransfer(job: job, easy: easy)
                if let failure = transfer.configure(configuration) {
                    job.continuation.resume(throwing: failure)
                    recycle(easy)
                    continue
                }
                let added = shelf_curl_multi_add_handle(multi, easy)
                guard added == CURLM_OK else {
                    job.continuation.resume(throwing: APIError.transport(TransportFailure(
                        kind: .other, method: job.request.method, url: job.request.url,
                        message: String(cString: shelf_curl_multi_strerror(added)))))
                    recycle(easy)
                    continue
                }
                transfers[job.id] = transfer
                transferIDs[easy] = job.id
            }

            for id in cancellations {
                end(id) { $0.fail(CancellationError()) }
            }

            if shuttingDown {
                for id in Array(transfers.keys) { end(id) { $0.fail(CancellationError()) } }
                idleHandles.forEach { shelf_curl_easy_cleanup($0) }
                shelf_curl_multi_cleanup(multi)
                return
            }

            var running: Int32 = 0
            _ = shelf_curl_multi_perform(multi, &running)
            var queued: Int32 = 0
            while let message = shelf_curl_multi_info_read(multi, &queued) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                      let id = transferIDs[easy]
                else { continue }
                let result = shelf_curl_msg_result(message)
                end(id) { $0.complete(result) }
            }
            let now = ContinuousClock.now
            for (id, transfer) in transfers where transfer.isUnanswered(at: now) {
                end(id) { $0.fail($0.unansweredFailure) }
            }

            // Sleeps until a socket is ready, libcurl's next timeout, a wakeup from
            // `enqueue`, or one second, whichever comes first.
            _ = shelf_curl_multi_poll(multi, nil, 0, 1_000, nil)
        }
    }
}

// MARK: - CurlGlobal

enum CurlGlobal {
    /// libcurl loaded and `curl_global_init` run exactly once per process (Swift runs a
    /// static's initializer once), by the first transport: a command that never makes
    /// one never loads libcurl.
    private static let initialized: Bool = shelf_curl_global_init() == CURLE_OK

    static func initializeOnce() {
        _ = initialized
    }
}
