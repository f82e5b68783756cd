import CCurl
import Foundation

// MARK: - CurlTransfer

/// One request in flight on an easy handle. Lives on the loop thread only: libcurl
/// calls its callbacks from `curl_multi_perform` there, and the loop finishes it.
final class CurlTransfer {
    let easy: UnsafeMutableRawPointer
    private let job: CurlJob
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// libcurl writes its explanation of a failure here (`CURLOPT_ERRORBUFFER`).
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private let errorBufferSize = shelf_curl_error_size()

    private var status = 0
    private var headers = HTTPHeaders()
    private var headDelivered = false
    private var body = Data()
    /// `Configuration.maximumResponseBytes`, for the body and for the headers.
    private var maximumBytes = Int.max
    private var headerBytes = 0
    /// Set when the body or headers passed `maximumBytes`: the callback then refuses
    /// the bytes, libcurl aborts, and the failure says why.
    private var exceededLimit = false
    /// Whether a byte of the answer (a header line) has arrived.
    private var answerStarted = false
    /// When the whole request was seen sent (connected, body uploaded), by the loop.
    private var sentAt: ContinuousClock.Instant?

    init(job: CurlJob, easy: UnsafeMutableRawPointer) {
        self.job = job
        self.easy = easy
        errorBuffer = .allocate(capacity: errorBufferSize)
        errorBuffer.initialize(repeating: 0, count: errorBufferSize)
    }

    deinit {
        // NB: the loop resets or cleans up the easy handle before a transfer is
        // released, so libcurl no longer points at the list or the buffer.
        shelf_curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    private var request: HTTPRequest { job.request }

    // MARK: Setup

    /// Sets the handle's options for the request.
    /// - Returns: the error to resume with when the request cannot be sent.
    func configure(_ configuration: CurlTransport.Configuration) -> APIError? {
        for (name, value) in request.headers {
            if name.isEmpty || name.contains(where: { $0 == ":" || $0.isNewline || $0.isWhitespace }) {
                return .invalidRequest("invalid header name '\(name)'")
            }
            if value.contains(where: \.isNewline) {
                return .invalidRequest("the value of header '\(name)' contains a line break")
            }
        }
        var lines = request.headers.map { "\($0.name): \($0.value)" }
        // NB: an empty `Expect:` stops libcurl from waiting for `100 Continue` before
        // sending a large body, a round trip Kinto never needs.
        lines.append("Expect:")
        if !request.headers.contains("User-Agent") { lines.append("User-Agent: \(configuration.userAgent)") }
        for line in lines { headerList = shelf_curl_slist_append(headerList, line) }

        maximumBytes = configuration.maximumResponseBytes
        let userData = Unmanaged.passUnretained(self).toOpaque()
        var codes: [CURLcode] = [
            shelf_curl_easy_setopt_string(easy, CURLOPT_URL, request.url),
            shelf_curl_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"),
            shelf_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1),
            shelf_curl_easy_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, ""),
            shelf_curl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, request.timeouts.connect.wholeMilliseconds),
            shelf_curl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, request.timeouts.request.wholeMilliseconds),
            shelf_curl_easy_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, request.timeouts.lowSpeedBytesPerSecond),
            shelf_curl_easy_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, request.timeouts.stall.wholeSeconds),
            shelf_curl_easy_setopt_long(easy, CURLOPT_MAXFILESIZE, maximumBytes),
            shelf_curl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, configuration.verifiesTLS ? 1 : 0),
            shelf_curl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, configuration.verifiesTLS ? 2 : 0),
            shelf_curl_easy_setopt_long(easy, CURLOPT_TCP_KEEPALIVE, 1),
            shelf_curl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList),
            shelf_curl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer),
            shelf_curl_easy_setopt_write_callback(easy, CURLOPT_WRITEFUNCTION) { buffer, size, count, userData in
                let length = size * count
                guard let buffer, let userData else { return length }
                let accepted = Unmanaged<CurlTransfer>.fromOpaque(userData).takeUnretainedValue()
                    .receiveBody(UnsafeRawPointer(buffer), count: length)
                // NB: returning fewer bytes than given makes libcurl abort the transfer.
                return accepted ? length : 0
            },
            shelf_curl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, userData),
            shelf_curl_easy_setopt_write_callback(easy, CURLOPT_HEADERFUNCTION) { buffer, size, count, userData in
                let length = size * count
                guard let buffer, let userData else { return length }
                let accepted = Unmanaged<CurlTransfer>.fromOpaque(userData).takeUnretainedValue()
                    .receiveHeaderLine(UnsafeRawBufferPointer(start: buffer, count: length))
                return accepted ? length : 0
            },
            shelf_curl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, userData),
        ]
        if let caBundlePath = configuration.caBundlePath {
            codes.append(shelf_curl_easy_setopt_string(easy, CURLOPT_CAINFO, caBundlePath))
        }
        codes += methodOptions()
        if let failed = codes.first(where: { $0 != CURLE_OK }) {
            return .invalidRequest("libcurl refused an option for \(request.method.rawValue) \(RedactedURL.string(request.url)): \(String(cString: shelf_curl_easy_strerror(failed)))")
        }
        return nil
    }

    private func methodOptions() -> [CURLcode] {
        switch request.method {
        case .get where request.body == nil:
            return [shelf_curl_easy_setopt_long(easy, CURLOPT_HTTPGET, 1)]
        case .head:
            return [shelf_curl_easy_setopt_long(easy, CURLOPT_NOBODY, 1)]
        default:
            var codes = [shelf_curl_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, request.method.rawValue)]
            if let body = request.body {
                // NB: size first, then COPYPOSTFIELDS, so libcurl copies exactly these
                // bytes and the request owns nothing libcurl still reads.
                codes.append(shelf_curl_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
                codes.append(body.withUnsafeBytes { raw in
                    if let start = raw.baseAddress, raw.count > 0 {
                        shelf_curl_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: start))
                    } else {
                        shelf_curl_easy_setopt_string(easy, CURLOPT_COPYPOSTFIELDS, "")
                    }
                })
            }
            return codes
        }
    }

    // MARK: Callbacks (loop thread, inside curl_multi_perform)

    /// - Returns: false when the body would pass `maximumBytes` (the transfer then ends).
    fileprivate func receiveBody(_ bytes: UnsafeRawPointer, count: Int) -> Bool {
        guard count <= maximumBytes - body.count else {
            exceededLimit = true
            return false
        }
        body.append(bytes.assumingMemoryBound(to: UInt8.self), count: count)
        return true
    }

    /// One header line, CRLF included. A status line starts a new head (after a
    /// `100 Continue` the final one follows); the empty line ends it.
    /// - Returns: false when the headers passed `maximumHeaderBytes` (the transfer then ends).
    fileprivate func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Bool {
        answerStarted = true
        headerBytes += bytes.count
        guard headerBytes <= Self.maximumHeaderBytes else {
            exceededLimit = true
            return false
        }
        var line = String(decoding: bytes, as: UTF8.self)
        while let last = line.last, last == "\r\n" || last == "\n" || last == "\r" { line.removeLast() }
        if line.hasPrefix("HTTP/") {
            let fields = line.split(separator: " ", maxSplits: 2)
            status = fields.count > 1 ? Int(fields[1]) ?? 0 : 0
            headers = HTTPHeaders()
        } else if line.isEmpty {
            if status >= 200 { deliverHead() }
        } else if let colon = line.firstIndex(of: ":") {
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers.add(name, value)
            if name.lowercased() == "content-length", let length = Int(value), length > 0, length <= min(maximumBytes, 64 << 20) {
                body.reserveCapacity(length)
            }
        }
        return true
    }

    /// Every header line of one response together, informational heads included: 256 KiB,
    /// a hundred times what Kinto sends.
    static let maximumHeaderBytes = 256 << 10

    private func deliverHead() {
        guard !headDelivered else { return }
        headDelivered = true
        job.onHead?(HTTPResponseHead(status: status, headers: headers))
    }

    // MARK: Waiting for the answer (loop thread)

    /// Whether the server has said nothing for `timeouts.stall` since the whole request
    /// was sent: a server that accepts and never answers. libcurl's low-speed limit sees
    /// that too, but only once the request's own bytes leave its five-second window of
    /// transfer speed, so a POST would wait ~16 s instead of 10; this gives every request
    /// the same bound. The loop asks at least once a second.
    func isUnanswered(at now: ContinuousClock.Instant) -> Bool {
        guard !answerStarted else { return false }
        guard let sentAt else {
            if hasSentRequest { sentAt = now }
            return false
        }
        return now - sentAt >= request.timeouts.stall
    }

    /// Connected, and the request's body (if any) handed to the network.
    private var hasSentRequest: Bool {
        var started: curl_off_t = 0
        _ = shelf_curl_easy_getinfo_off_t(easy, CURLINFO_PRETRANSFER_TIME_T, &started)
        guard started > 0 else { return false }
        guard let body = request.body, !body.isEmpty else { return true }
        var uploaded: curl_off_t = 0
        _ = shelf_curl_easy_getinfo_off_t(easy, CURLINFO_SIZE_UPLOAD_T, &uploaded)
        return uploaded >= curl_off_t(body.count)
    }

    /// The failure of a request `isUnanswered` gave up on.
    var unansweredFailure: APIError {
        .transport(TransportFailure(
            kind: .timeout, method: request.method, url: request.url, code: Int(CURLE_OPERATION_TIMEDOUT.rawValue),
            message: "no answer \(request.timeouts.stall.wholeSeconds) s after the request was sent"))
    }

    // MARK: Finishing (loop thread; the loop calls exactly one of these, once)

    func complete(_ result: CURLcode) {
        guard result == CURLE_OK else {
            fail(error(for: result))
            return
        }
        var code = 0
        _ = shelf_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &code)
        if code > 0 { status = code }
        deliverHead()
        job.continuation.resume(returning: HTTPResponse(status: status, headers: headers, body: body, url: request.url))
    }

    func fail(_ error: any Error) {
        job.continuation.resume(throwing: error)
    }

    private func error(for result: CURLcode) -> APIError {
        let explanation = errorBuffer.pointee != 0 ? String(cString: errorBuffer) : String(cString: shelf_curl_easy_strerror(result))
        if exceededLimit || result == CURLE_FILESIZE_EXCEEDED {
            return .transport(TransportFailure(
                kind: .tooLarge, method: request.method, url: request.url, code: Int(result.rawValue),
                message: "aborted past \(maximumBytes) bytes of body or \(Self.maximumHeaderBytes) bytes of headers"))
        }
        let kind: TransportFailure.Kind
        switch result {
        case CURLE_OPERATION_TIMEDOUT:
            kind = .timeout
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            kind = .hostNotFound
        case CURLE_COULDNT_CONNECT:
            var osError = 0
            _ = shelf_curl_easy_getinfo_long(easy, CURLINFO_OS_ERRNO, &osError)
            kind = osError == Int(ECONNREFUSED) ? .connectionRefused : .other
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
             CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR,
             CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CRL_BADFILE,
             CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED,
             CURLE_SSL_SHUTDOWN_FAILED, CURLE_USE_SSL_FAILED:
            kind = .tls
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE,
             CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_HTTP3:
            kind = .connectionLost
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
            return .invalidRequest("\(explanation): \(RedactedURL.string(request.url))")
        default:
            kind = .other
        }
        return .transport(TransportFailure(
            kind: kind, method: request.method, url: request.url, code: Int(result.rawValue), message: explanation))
    }
}
