public import Foundation

/// What is known about a received item when its type must be decided.
public struct ResolutionRequest: Hashable, Sendable {
    /// The item's name as received (only the last path component is used).
    public var fileName: String
    /// Whether the item is a directory (a folder or a package).
    public var isDirectory: Bool
    /// The type the sender declared, a type identifier or a MIME type; only a hint.
    public var declaredType: String?
    /// The first bytes of the file (the caller reads, say, 4 KiB); `nil` when not read.
    public var content: [UInt8]?

    /// Creates a request.
    /// - Parameters:
    ///   - fileName: the name as received.
    ///   - isDirectory: whether the item is a directory.
    ///   - declaredType: the sender's type identifier or MIME type, if any.
    ///   - content: the file's first bytes, if read.
    public init(fileName: String, isDirectory: Bool = false, declaredType: String? = nil, content: [UInt8]? = nil) {
        self.fileName = fileName
        self.isDirectory = isDirectory
        self.declaredType = declaredType
        self.content = content
    }

    /// Creates a request from the file's first bytes as `Data`.
    public init(fileName: String, isDirectory: Bool = false, declaredType: String? = nil, contentPrefix: Data) {
        self.init(
            fileName: fileName, isDirectory: isDirectory, declaredType: declaredType, content: [UInt8](contentPrefix))
    }
}
