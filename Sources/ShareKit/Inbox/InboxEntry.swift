public import Foundation

/// One received document waiting in the inbox (`Inbox/<id>/`), as stored in its `.share-entry.json`.
///
/// An entry exists from the moment a transfer is committed until its import succeeds; an entry
/// that stays is one whose import failed or never ran (the receiver stopped first).
public struct InboxEntry: Codable, Sendable, Hashable {
    /// Where the entry is in its life.
    public enum State: String, Codable, Sendable {
        /// Committed, not imported yet (or the receiver stopped while importing it).
        case pending
        /// The last import attempt failed; ``InboxEntry/failure`` says why.
        case failed
    }

    /// The entry's identifier: its folder's name in the inbox (8 lowercase hex digits).
    public var id: String
    /// The document's name as the sender gave it (escape before printing).
    public var name: String
    /// Whether the document is a bundle (a folder).
    public var isBundle: Bool
    /// Files it holds.
    public var files: Int
    /// Bytes it holds.
    public var bytes: UInt64
    /// The sender's device name (escape before printing).
    public var senderName: String
    /// The sender's fingerprint, 64 lowercase hex digits.
    public var senderFingerprint: String
    /// When it was committed.
    public var receivedAt: Date
    /// The type the sender declared, if any (only a hint).
    public var declaredType: String?
    /// The receive folder of the receiver that kept it (`share receive --dir`): where
    /// `share inbox import` places it when no application imports it.
    public var receiveFolder: String?
    /// The type the registry resolved at the last attempt.
    public var resolvedType: String?
    /// Pending or failed.
    public var state: State
    /// Why the last attempt failed.
    public var failure: String?
    /// Whether the last attempt failed because the importer needs the document's password (none
    /// was given, or the one given did not open it).
    public var needsPassword: Bool
    /// Import attempts so far.
    public var attempts: Int
    /// When the last attempt ended.
    public var lastAttemptAt: Date?
    /// A bundle's own permission bits and modification time, applied once it reaches its final
    /// place (in the inbox it stays writable so it can be moved out).
    public var folderMode: UInt16?
    /// Seconds of a bundle's modification time.
    public var folderModificationSeconds: Int64?
    /// Nanoseconds of a bundle's modification time.
    public var folderModificationNanoseconds: UInt32?

    /// Creates a pending entry (its identifier is assigned when it is committed to the inbox).
    public init(
        name: String, isBundle: Bool, files: Int, bytes: UInt64, senderName: String, senderFingerprint: String,
        receivedAt: Date = Date(), declaredType: String?, receiveFolder: String? = nil
    ) {
        self.id = ""
        self.name = name
        self.isBundle = isBundle
        self.files = files
        self.bytes = bytes
        self.senderName = senderName
        self.senderFingerprint = senderFingerprint
        self.receivedAt = receivedAt
        self.declaredType = declaredType
        self.receiveFolder = receiveFolder
        self.resolvedType = nil
        self.state = .pending
        self.failure = nil
        self.needsPassword = false
        self.attempts = 0
        self.lastAttemptAt = nil
    }

    private enum CodingKeys: String, CodingKey {
        case name, isBundle, files, bytes, senderName, senderFingerprint, receivedAt, declaredType, receiveFolder, resolvedType
        case state, failure, needsPassword, attempts, lastAttemptAt, folderMode, folderModificationSeconds
        case folderModificationNanoseconds
    }

    /// Decodes an entry; its identifier comes from its folder's name, not from the file.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = ""
        name = try container.decode(String.self, forKey: .name)
        isBundle = try container.decode(Bool.self, forKey: .isBundle)
        files = try container.decode(Int.self, forKey: .files)
        bytes = try container.decode(UInt64.self, forKey: .bytes)
        senderName = try container.decode(String.self, forKey: .senderName)
        senderFingerprint = try container.decode(String.self, forKey: .senderFingerprint)
        receivedAt = try container.decode(Date.self, forKey: .receivedAt)
        declaredType = try container.decodeIfPresent(String.self, forKey: .declaredType)
        receiveFolder = try container.decodeIfPresent(String.self, forKey: .receiveFolder)
        resolvedType = try container.decodeIfPresent(String.self, forKey: .resolvedType)
        state = try container.decode(State.self, forKey: .state)
        failure = try container.decodeIfPresent(String.self, forKey: .failure)
        needsPassword = try container.decodeIfPresent(Bool.self, forKey: .needsPassword) ?? false
        attempts = try container.decode(Int.self, forKey: .attempts)
        lastAttemptAt = try container.decodeIfPresent(Date.self, forKey: .lastAttemptAt)
        folderMode = try container.decodeIfPresent(UInt16.self, forKey: .folderMode)
        folderModificationSeconds = try container.decodeIfPresent(Int64.self, forKey: .folderModificationSeconds)
        folderModificationNanoseconds = try container.decodeIfPresent(
            UInt32.self, forKey: .folderModificationNanoseconds)
    }

    /// Encodes every field but the identifier.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(isBundle, forKey: .isBundle)
        try container.encode(files, forKey: .files)
        try container.encode(bytes, forKey: .bytes)
        try container.encode(senderName, forKey: .senderName)
        try container.encode(senderFingerprint, forKey: .senderFingerprint)
        try container.encode(receivedAt, forKey: .receivedAt)
        try container.encodeIfPresent(declaredType, forKey: .declaredType)
        try container.encodeIfPresent(receiveFolder, forKey: .receiveFolder)
        try container.encodeIfPresent(resolvedType, forKey: .resolvedType)
        try container.encode(state, forKey: .state)
        try container.encodeIfPresent(failure, forKey: .failure)
        if needsPassword { try container.encode(needsPassword, forKey: .needsPassword) }
        try container.encode(attempts, forKey: .attempts)
        try container.encodeIfPresent(lastAttemptAt, forKey: .lastAttemptAt)
        try container.encodeIfPresent(folderMode, forKey: .folderMode)
        try container.encodeIfPresent(folderModificationSeconds, forKey: .folderModificationSeconds)
        try container.encodeIfPresent(folderModificationNanoseconds, forKey: .folderModificationNanoseconds)
    }
}
