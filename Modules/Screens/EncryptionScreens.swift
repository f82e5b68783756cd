import Domain
import Sync

// MARK: - EncryptionStatusScreen

/// `shelf encryption status`: whether the account is encrypted, the key new records are
/// sealed with, whether this device holds it, and what is not sealed on the server yet.
public struct EncryptionStatusScreen: RenderableScreen, Hashable {
    public let account: String
    public let enabled: Bool
    public let keyID: String?
    public let holdsKey: Bool
    public let notYetEncrypted: Int
    public let keyringVersion: Int64?
    public let plaintextClosed: Bool
    public let deletedByServer: Int
    public let revealingIDs: Int

    public init(account: String, _ status: AccountEncryption.Status) {
        self.account = account
        enabled = status.isEnabled
        keyID = status.keyID
        holdsKey = status.holdsKey
        notYetEncrypted = status.notYetEncrypted
        keyringVersion = status.keyringVersion
        plaintextClosed = status.plaintextClosed
        deletedByServer = status.deletedByServer
        revealingIDs = status.revealingIDs
    }

    public func renderText(_ options: RenderOptions) -> String {
        var text = ScreenText(options)
        guard enabled else {
            text.line("Account \(account) is not encrypted: its records are stored on the server in the clear ('shelf encryption enable').")
            return text.text
        }
        text.line("Account \(account) is encrypted end to end.")
        text.line("Key:       \(keyID ?? "unknown")")
        text.line(holdsKey
            ? "This device: holds the key (syncs need no passphrase; 'shelf encryption lock' removes it)"
            : "This device: holds no key — its syncs leave the account's records alone until 'shelf encryption join'")
        text.line(notYetEncrypted == 0
            ? "Server:    every record this device knows is sealed"
            : "Server:    \(notYetEncrypted) record\(notYetEncrypted == 1 ? "" : "s") not sealed yet: 'shelf sync' sends them")
        if let keyringVersion {
            text.line("Keyring:   version \(keyringVersion), authenticated; "
                + (plaintextClosed ? "records in the clear are refused" : "migration under way: records in the clear are still taken for ids never seen sealed"))
        } else {
            text.line("Keyring:   format 1, not authenticated: the next 'shelf sync' upgrades it")
        }
        text.line(revealingIDs == 0
            ? "Ids:       none reveals a record's source"
            : "Ids:       \(revealingIDs) record\(revealingIDs == 1 ? "" : "s") still named after their source (gr-…, cal-…): the next 'shelf sync' renames them")
        if deletedByServer > 0 {
            text.line("Refused:   the server deleted \(deletedByServer) record\(deletedByServer == 1 ? "" : "s") without you: 'shelf encryption put-back' uploads them again")
        }
        return text.text
    }

    private enum CodingKeys: String, CodingKey {
        case account, enabled
        case keyID = "key_id"
        case holdsKey = "holds_key"
        case notYetEncrypted = "not_yet_encrypted"
        case keyringVersion = "keyring_version"
        case plaintextClosed = "plaintext_closed"
        case deletedByServer = "deleted_by_server"
        case revealingIDs = "revealing_ids"
    }
}

// MARK: - EncryptionChangeScreen

/// What an `shelf encryption` command changed, as one sentence and as JSON.
public struct EncryptionChangeScreen: RenderableScreen, Hashable {
    public enum Action: String, Encodable, Hashable, Sendable {
        case enabled, joined, passphraseChanged = "passphrase_changed", rotated, locked, putBack = "put_back"
    }

    public let action: Action
    public let account: String
    /// Records queued to go up sealed (enable, rotate).
    public let queued: Int
    public let message: String

    public init(_ action: Action, account: String, queued: Int = 0, removedKey: Bool = true) {
        self.action = action
        self.account = account
        self.queued = queued
        let records = "\(queued) record\(queued == 1 ? "" : "s")"
        message = switch action {
        case .enabled: queued > 0
            ? "Encryption is on for account \(account); \(records) queued to go up sealed ('shelf sync' sends them)"
            : "Encryption is on for account \(account)"
        case .joined: "Joined account \(account)'s encryption: this device holds its key; the next 'shelf sync' fetches what it could not read"
        case .passphraseChanged: "Changed account \(account)'s passphrase; no record was sealed again"
        case .rotated: "Rotated account \(account)'s key; \(records) queued to be sealed with the new one. Other devices run 'shelf encryption join' again"
        case .locked: removedKey
            ? "Removed account \(account)'s key from this device; syncs leave its records alone until 'shelf encryption join'"
            : "This device held no key of account \(account)"
        case .putBack: queued > 0
            ? "Queued \(records) the server deleted without you to go back up (account \(account))"
            : "The server deleted nothing without you (account \(account))"
        }
    }

    public func renderText(_ options: RenderOptions) -> String {
        var text = ScreenText(options)
        text.line(message)
        return text.text
    }

    private enum CodingKeys: String, CodingKey {
        case action, account, queued
    }
}
