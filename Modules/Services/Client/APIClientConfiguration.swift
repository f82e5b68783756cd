import Foundation

// MARK: - APIClient.Configuration

extension APIClient {
    /// Where the server is, who is asking and how long to wait.
    public struct Configuration: Sendable, Hashable {
        /// The API root, e.g. `http://127.0.0.1:8888/v1`. Paths given to the client are
        /// appended to it.
        public var baseURL: String
        /// Sent as HTTP Basic auth; nil sends no `Authorization` header.
        public var credentials: Credentials?
        /// Applied to every request. Default: `Timeouts.default` (10 s connect, 60 s total).
        public var timeouts: Timeouts

        public init(baseURL: String, credentials: Credentials? = nil, timeouts: Timeouts = .default) {
            var base = baseURL.trimmingCharacters(in: .whitespaces)
            while base.hasSuffix("/") { base.removeLast() }
            self.baseURL = base
            self.credentials = credentials
            self.timeouts = timeouts
        }
    }

    // MARK: - Credentials

    /// A user name and password for HTTP Basic auth. The password never appears in a
    /// description, a debug dump or an error.
    public struct Credentials: Sendable, Hashable {
        public var user: String
        public var password: String

        public init(user: String, password: String) {
            self.user = user
            self.password = password
        }

        /// `Basic <base64(user:password)>`.
        var authorizationHeaderValue: String {
            "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        }
    }
}

// MARK: - Descriptions without secrets

extension APIClient.Credentials: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "\(user):<redacted>" }
    public var debugDescription: String { "Credentials(user: \(user), password: <redacted>)" }
    /// `dump()` and the debugger show this instead of the stored properties.
    public var customMirror: Mirror { Mirror(self, children: ["user": user, "password": "<redacted>"]) }
}

extension APIClient.Configuration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "APIClient.Configuration(baseURL: \(RedactedURL.string(baseURL)), credentials: \(credentials.map(\.description) ?? "none"), "
            + "timeouts: connect \(timeouts.connect), request \(timeouts.request))"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: [
            "baseURL": RedactedURL.string(baseURL),
            "credentials": credentials.map(\.debugDescription) ?? "none",
            "timeouts": timeouts,
        ])
    }
}
