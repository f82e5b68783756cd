// MARK: - Credentials

/// A user name and password for the server's Basic auth.
///
/// Its descriptions never show the password, so a credential that ends up in a log
/// line, an error or a debugger print leaks nothing.
public struct Credentials: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    public let user: String
    public let password: String

    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    public var description: String { "\(user):<redacted>" }
    public var debugDescription: String { description }
}
