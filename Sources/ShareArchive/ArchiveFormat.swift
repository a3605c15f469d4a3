/// The archive formats ShareArchive reads and writes.
public enum ArchiveFormat: String, Sendable, Hashable, CaseIterable {
    /// A POSIX (pax) tar archive compressed with gzip: `.tar.gz`, `.tgz`, and document formats built on it.
    case tarGzip = "tar.gz"
    /// A zip archive (entries deflated).
    case zip
}
