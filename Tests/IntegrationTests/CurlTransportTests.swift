import Dispatch
import Foundation
import Records
import Services
import Synchronization
import Testing
import TestSupport

/// The libcurl transport against loopback servers that misbehave on cue: never answer,
/// answer half, or answer only when the test opens a gate.
@Suite("Curl transport")
struct CurlTransportTests {
    /// What a loopback server's handler tells the test, in order.
    enum ServerEvent: Sendable { case requestReceived(String), clientClosed }

    /// A server whose every connection reads the request, reports it, and then waits,
    /// answering nothing, until the client goes away.
    static func silentServer() throws -> (LoopbackTCPServer, AsyncStream<ServerEvent>) {
        let (events, sink) = AsyncStream<ServerEvent>.makeStream()
        let server = try LoopbackTCPServer { connection in
            sink.yield(.requestReceived(connection.readRequestHead() ?? ""))
            connection.waitUntilClosedByPeer()
            sink.yield(.clientClosed)
        }
        return (server, events)
    }

    // MARK: Cancellation and failures

    @Test func cancellingAnInFlightRequestAbortsItPromptly() async throws {
        let (server, events) = try Self.silentServer()
        defer { server.stop() }
        var serverEvents = events.makeAsyncIterator()
        let transport = CurlTransport()
        // NB: the server holds the request on purpose; no stall limit may end it first.
        let request = HTTPRequest(
            url: server.origin + "/v1/slow", timeouts: Timeouts(connect: .seconds(5), request: .seconds(600), stall: .seconds(600)))
        let task = Task { try await transport.send(request) }

        // The server holds the request: it is truly in flight.
        guard case .requestReceived(let head) = await serverEvents.next() else { Issue.record("no request"); return }
        #expect(head.hasPrefix("GET /v1/slow HTTP/1.1"))

        let cancelledAt = ContinuousClock.now
        task.cancel()
        let result = await task.result
        // Far below the 600 s timeout, with room for a loaded CI machine that resumes this
        // test late: the abort, not the timeout, ended it (the server seeing the
        // connection close proves it too).
        #expect(ContinuousClock.now - cancelledAt < .seconds(120))
        #expect(throws: CancellationError.self) { try result.get() }
        // The transfer was aborted, not left to run: the server sees the connection close.
        guard case .clientClosed = await serverEvents.next() else { Issue.record("connection left open"); return }
    }

    @Test func aTaskCancelledBeforeSendingNeverConnects() async throws {
        let (server, events) = try Self.silentServer()
        defer { server.stop() }
        let transport = CurlTransport()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.send(HTTPRequest(url: server.origin + "/never"))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        // A request sent afterwards is the first one the server sees.
        let probe = Task { try await transport.send(HTTPRequest(url: server.origin + "/probe", timeouts: Timeouts(request: .milliseconds(300)))) }
        var serverEvents = events.makeAsyncIterator()
        guard case .requestReceived(let head) = await serverEvents.next() else { Issue.record("no request"); return }
        #expect(head.hasPrefix("GET /probe "))
        _ = await probe.result
    }

    @Test func aServerThatNeverAnswersTimesOut() async throws {
        let (server, _) = try Self.silentServer()
        defer { server.stop() }
        let client = APIClient(
            configuration: .init(baseURL: server.origin + "/v1", timeouts: Timeouts(connect: .seconds(2), request: .milliseconds(400))),
            transport: CurlTransport())
        let error = await #expect(throws: APIError.self) { try await client.send(.get, "/records") }
        let failure = try #require(error?.transportFailure)
        #expect(failure.kind == .timeout)
        // The 400 ms request timeout ended it, not the 60 s default. NB: judged by
        // libcurl's own clock ("Operation timed out after 401 milliseconds …"): the
        // transfer runs on the transport's thread, but this test's wall clock also counts
        // how long a loaded machine took to resume it.
        let elapsed = failure.message.split(separator: " ").drop { $0 != "after" }.dropFirst().first.flatMap { Int($0) }
        // A wall-clock bound here failed at 62 s on a machine at load 23, where the
        // test's own resumption waited for a thread of the cooperative pool.
        #expect(try #require(elapsed, "\(failure.message)") < 5_000, "\(failure.message)")
        #expect(failure.url == server.origin + "/v1/records")
    }

    @Test func aPortNobodyListensOnIsConnectionRefused() async throws {
        let closed = try ClosedLoopbackPort()
        let client = APIClient(configuration: .init(baseURL: closed.origin + "/v1"), transport: CurlTransport())
        let error = await #expect(throws: APIError.self) { try await client.send(.get, "/") }
        let failure = try #require(error?.transportFailure)
        #expect(failure.kind == .connectionRefused)
        #expect(failure.url == closed.origin + "/v1/")
        #expect("\(error!)".contains("connection refused"))
    }

    @Test func anUnknownHostIsHostNotFound() async throws {
        // `.invalid` never resolves (RFC 2606), so nothing leaves the machine.
        let client = APIClient(configuration: .init(baseURL: "http://shelf-test.invalid/v1"), transport: CurlTransport())
        let error = await #expect(throws: APIError.self) { try await client.send(.get, "/") }
        #expect(error?.transportFailure?.kind == .hostNotFound)
    }

    // MARK: Heads, concurrency, reuse

    @Test func theHeadArrivesBeforeTheBody() async throws {
        let releaseBody = DispatchSemaphore(value: 0)
        let server = try LoopbackTCPServer { connection in
            connection.readRequestHead()
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: 10\r\nNext-Page: http://127.0.0.1/v1/next\r\nETag: \"7\"\r\n\r\n12345")
            releaseBody.wait()  // the gate: the rest of the body comes when the test says so
            connection.write("67890")
        }
        defer { server.stop() }
        let (heads, headSink) = AsyncStream<HTTPResponseHead>.makeStream()
        let finished = Mutex(false)
        let transport = CurlTransport()
        let task = Task {
            // NB: the body is held until the test says so; no stall limit may end it first.
            let held = HTTPRequest(url: server.origin + "/v1/page", timeouts: Timeouts(stall: .seconds(60)))
            let response = try await transport.send(held) { headSink.yield($0) }
            finished.withLock { $0 = true }
            return response
        }

        var iterator = heads.makeAsyncIterator()
        let head = try #require(await iterator.next())
        #expect(head.status == 200)
        #expect(head.headers["next-page"] == "http://127.0.0.1/v1/next")
        #expect(finished.withLock { $0 } == false)  // half the body is still held back

        releaseBody.signal()
        let response = try await task.value
        #expect(String(decoding: response.body, as: UTF8.self) == "1234567890")
        #expect(response.headers["ETag"] == "\"7\"")
    }

    @Test func eightRequestsRunAtOnce() async throws {
        // Every connection waits until all eight have arrived: a transport that ran them
        // one at a time would time out here.
        let arrived = Mutex(0)
        let allArrived = DispatchSemaphore(value: 0)
        let server = try LoopbackTCPServer { connection in
            guard let head = connection.readRequestHead() else { return }
            let count = arrived.withLock { count in
                count += 1
                return count
            }
            if count == 8 { for _ in 0..<8 { allArrived.signal() } }
            allArrived.wait()
            let path = head.split(separator: " ")[1]
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(path.utf8.count)\r\n\r\n\(path)")
        }
        defer { server.stop() }
        let transport = CurlTransport()
        let bodies = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<8 {
                group.addTask {
                    let request = HTTPRequest(url: server.origin + "/r\(index)", timeouts: Timeouts(request: .seconds(10)))
                    return String(decoding: try await transport.send(request).body, as: UTF8.self)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(bodies) == Set((0..<8).map { "/r\($0)" }))
    }

    @Test func eightConcurrentRequestsAgainstKinto() async throws {
        let account = try await KintoTestAccount()
        let service = account.collection(.tasks)
        let created = try await withThrowingTaskGroup(of: RawRecord.self) { group in
            for index in 0..<8 {
                group.addTask {
                    try await service.create(id: "task-\(index)", data: Data(#"{"title":"Task \#(index)","done":false}"#.utf8))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(created.map(\.id)) == Set((0..<8).map { "task-\($0)" }))
        let read = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<8 { group.addTask { try await service.record(id: "task-\(index)").id } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(read.count == 8)
    }

    @Test func sequentialRequestsReuseOneConnection() async throws {
        let connections = Mutex(0)
        let server = try LoopbackTCPServer { connection in
            connections.withLock { $0 += 1 }
            while connection.readRequestHead() != nil {
                connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            }
        }
        defer { server.stop() }
        let transport = CurlTransport()
        for _ in 0..<5 {
            #expect(try await transport.send(HTTPRequest(url: server.origin + "/again")).status == 200)
        }
        #expect(connections.withLock { $0 } == 1)
    }

    @Test func asksForCompressedBodiesAndSendsBodiesWithoutExpect() async throws {
        let heads = CallLog<String>()
        let server = try LoopbackTCPServer { connection in
            heads.record(connection.readRequestHead() ?? "")
            connection.write("HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n")
        }
        defer { server.stop() }
        let body = Data(repeating: UInt8(ascii: "x"), count: 4096)
        let response = try await CurlTransport().send(HTTPRequest(method: .put, url: server.origin + "/x", headers: ["Content-Type": "application/json"], body: body))
        #expect(response.status == 201)
        let head = try #require(heads.values.first).lowercased()
        #expect(head.hasPrefix("put /x http/1.1"))
        #expect(head.contains("accept-encoding: deflate, gzip, br, zstd"))
        #expect(head.contains("content-length: 4096"))
        #expect(!head.contains("expect:"))
    }

    @Test func headerInjectionIsRefused() async throws {
        let request = HTTPRequest(url: "http://127.0.0.1:1/", headers: ["X-Evil": "a\r\nInjected: yes"])
        let error = await #expect(throws: APIError.self) { try await CurlTransport().send(request) }
        guard case .invalidRequest = error else { Issue.record("expected invalidRequest, got \(String(describing: error))"); return }
    }
}

/// A transfer that makes no progress ends after its stall limit, whatever the request
/// timeout allows: a server that accepts and never answers, or trickles.
@Suite("Curl transport: stalled transfers end")
struct CurlStallTests {
    @Test func aSilentServerEndsAtTheStallLimitNotTheRequestTimeout() async throws {
        let server = try LoopbackTCPServer { connection in
            connection.readRequestHead()
            connection.waitUntilClosedByPeer()
        }
        defer { server.stop() }
        let request = HTTPRequest(url: server.origin + "/v1/silent", timeouts: Timeouts(request: .seconds(600), stall: .seconds(1)))
        let started = ContinuousClock.now
        let error = await #expect(throws: APIError.self) { try await CurlTransport().send(request) }
        // libcurl's own words say which limit ended it: "Operation too slow …" is
        // the stall limit ("Operation timed out" would be the request
        // timeout). The wall clock only has to stay far below the 600 s request timeout:
        // a loaded machine resumed this test 62 s late once (load 23).
        #expect(ContinuousClock.now - started < .seconds(300))
        #expect(error?.transportFailure?.kind == .timeout, "\(String(describing: error))")
        // libcurl's low-speed check ("too slow") or Shelf's own answer deadline, whichever
        // looks first: both are the stall limit.
        let said = "\(String(describing: error))"
        #expect(said.contains("too slow") || said.contains("no answer 1 s after the request was sent"), "\(said)")
    }

    /// A POST to a silent server ends at the stall limit too. libcurl's low-speed check
    /// alone counts the request's own upload in its five-second window of speed, so a
    /// batch waited ~16 s where a GET waited 10; the answer deadline gives both the limit.
    @Test func aPostToASilentServerEndsAtTheStallLimitAsAGetDoes() async throws {
        let server = try LoopbackTCPServer { connection in
            connection.readRequestHead()
            connection.waitUntilClosedByPeer()
        }
        defer { server.stop() }
        let body = Data(String(repeating: "x", count: 4_000).utf8)
        let request = HTTPRequest(
            method: .post, url: server.origin + "/v1/batch", body: body, timeouts: Timeouts(request: .seconds(600), stall: .seconds(2)))
        let started = ContinuousClock.now
        let error = await #expect(throws: APIError.self) { try await CurlTransport().send(request) }
        let took = ContinuousClock.now - started
        #expect(error?.transportFailure?.kind == .timeout, "\(String(describing: error))")
        // NB: the words say which limit ended it (libcurl's check would say "too slow",
        // ~7 s in); the wall clock only has to stay far below the request timeout, with
        // room for a loaded machine that resumes this test late.
        #expect("\(String(describing: error))".contains("no answer 2 s after the request was sent"), "\(String(describing: error))")
        #expect(took >= .seconds(2), "not before the limit: \(took)")
        #expect(took < .seconds(300), "\(took)")
    }
}
