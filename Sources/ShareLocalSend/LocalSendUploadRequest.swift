import Foundation
public import ShareDocuments

/// A `prepare-upload` request as a LocalSend sender makes it: who it says it is, and the files it
/// offers. Read with every bound checked before anything is kept (``LocalSendLimits``), and every
/// name checked by share's own path rules (a sender's `fileName` may be a relative path from a
/// folder it sends: `Trip/day 1.jpg`); a request with one bad name is refused whole, with the reason.
public struct LocalSendUploadRequest: Sendable {
    /// One offered file.
    public struct File: Sendable, Hashable {
        /// The sender's id for it (the key of `files`).
        public var id: String
        /// Its name, a relative path that passed share's path rules.
        public var fileName: String
        /// Its size in bytes.
        public var size: UInt64
        /// Its MIME type, as the sender says (not trusted: the type registry types it).
        public var fileType: String?
        /// The SHA-256 the sender gives for it (32 bytes), when it gives one.
        public var sha256: [UInt8]?
    }

    /// The sender as it describes itself (nothing proves it).
    public var sender: LocalSendDevice
    /// The files, ordered by name (the order the sender's JSON object had is not kept by JSON).
    public var files: [File]
    /// Their sizes together.
    public var totalBytes: UInt64

    /// Reads a `prepare-upload` body.
    public init(json bytes: some Collection<UInt8>, limits: LocalSendLimits.Upload = .init()) throws(LocalSendMessageError) {
        guard bytes.count <= limits.requestBytes else { throw .tooLong(bytes: bytes.count, limit: limits.requestBytes) }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] else { throw .notJSON }
        guard let info = object["info"] as? [String: Any] else { throw .missingField("info") }
        sender = try LocalSendDevice(fields: info)
        guard let offered = object["files"] as? [String: Any] else { throw .missingField("files") }
        guard offered.count <= limits.files else {
            throw .invalidField("files", "\(offered.count) files, more than the \(limits.files) share takes at once")
        }
        var files: [File] = []
        var total: UInt64 = 0
        var names = Set<String>()
        for (id, value) in offered {
            guard id.utf8.count <= LocalSendLimits.idBytes, !id.isEmpty else { throw .invalidField("files", "a file id is empty or too long") }
            guard let fields = value as? [String: Any] else { throw .invalidField("files", "file '\(DisplayText.escape(id))' is not an object") }
            let file = try Self.file(id: id, fields, limits: limits)
            guard names.insert(file.fileName).inserted else {
                throw .invalidField("fileName", "'\(DisplayText.escape(file.fileName))' is offered twice")
            }
            let (sum, overflow) = total.addingReportingOverflow(file.size)
            guard !overflow, sum <= limits.totalBytes else {
                throw .invalidField("size", "the files hold more than the \(limits.totalBytes) bytes share takes at once")
            }
            total = sum
            files.append(file)
        }
        self.files = files.sorted { $0.fileName < $1.fileName }
        totalBytes = total
    }

    private static func file(id: String, _ fields: [String: Any], limits: LocalSendLimits.Upload) throws(LocalSendMessageError) -> File {
        if let claimed = fields["id"] as? String, claimed != id {
            throw .invalidField("files", "file '\(DisplayText.escape(id))' says its id is '\(DisplayText.escape(claimed))'")
        }
        guard let name = fields["fileName"] as? String, !name.isEmpty else { throw .missingField("fileName") }
        guard name.utf8.count <= limits.pathLimits.maxPathBytes else {
            throw .invalidField("fileName", "a name is longer than \(limits.pathLimits.maxPathBytes) bytes")
        }
        if let problem = PathRules.problem(in: name, limits: limits.pathLimits) {
            throw .invalidField("fileName", "'\(DisplayText.escape(name))' is not a safe name: \(problem)")
        }
        // A JSON `true` reads as 1 too: a boolean is told apart by its Objective-C type ("c").
        let number = fields["size"] as? NSNumber
        guard let number, String(cString: number.objCType) != "c", let whole = fields["size"] as? Int, whole >= 0 else {
            throw .invalidField("size", "the size of '\(DisplayText.escape(name))' is not a whole number of bytes")
        }
        let size = UInt64(whole)
        guard size <= limits.fileBytes else {
            throw .invalidField("size", "'\(DisplayText.escape(name))' has \(size) bytes, more than the \(limits.fileBytes) share takes")
        }
        var digest: [UInt8]?
        switch fields["sha256"] {
        case nil, is NSNull: digest = nil
        case let text as String:
            guard let bytes = Hex.decode(text), bytes.count == 32 else {
                throw .invalidField("sha256", "the SHA-256 of '\(DisplayText.escape(name))' is not 64 hex digits")
            }
            digest = bytes
        default: throw .invalidField("sha256", "the SHA-256 of '\(DisplayText.escape(name))' is not a string")
        }
        let type = (fields["fileType"] as? String).flatMap { $0.utf8.count <= 255 ? $0 : nil }
        return File(id: id, fileName: name, size: size, fileType: type, sha256: digest)
    }
}
