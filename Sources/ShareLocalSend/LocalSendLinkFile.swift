/// One file a download link (`share send --link`) serves, as LocalSend's reverse transfer names it.
public struct LocalSendLinkFile: Sendable, Hashable {
    /// Its id in `prepare-download` and in download addresses (`f0`, `f3`...).
    public var id: String
    /// Its name: a relative path for a folder's files (`Photos/2024/a.jpg`).
    public var fileName: String
    /// Its size in bytes.
    public var size: UInt64
    /// Its MIME type.
    public var fileType: String
    /// The SHA-256 of its content, in lower-case hex.
    public var sha256: String

    /// Describes a file.
    public init(id: String, fileName: String, size: UInt64, fileType: String, sha256: String) {
        self.id = id
        self.fileName = fileName
        self.size = size
        self.fileType = fileType
        self.sha256 = sha256
    }

    /// The last part of its name: what a browser saves it as (a browser keeps no folders).
    public var baseName: String {
        fileName.split(separator: "/").last.map(String.init) ?? fileName
    }
}
