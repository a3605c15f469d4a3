public import TypeRegistry

/// Which files are already compressed, as far as their names tell the sender's type registry: no
/// zstd is tried on them (docs/PROTOCOL.md §8, docs/PERFORMANCE.md "Compression").
///
/// A type is compressed when it conforms to images, audio and video, or archives, or when it or a
/// type it conforms to has a MIME type of a compressed format (zstd, xz, lz4, fonts in WOFF,
/// `+zip` formats, subtypes that say `compressed`...), unless it conforms to one of the formats in
/// those families that are stored as they are (tar, ISO images, BMP, TIFF, TGA, PNM and X pixmaps,
/// icons, SVG, WAV and AIFF), which are left to the sample. A name that suggests several types is
/// compressed only when all of them are; a name the registry does not know is not.
public struct CompressedTypes: Sendable {
    /// Families whose members are compressed unless they are one of ``storedAsIs``.
    public static let families: [TypeIdentifier] = ["public.image", "public.audiovisual-content", "public.archive"]

    /// Formats in those families that keep their content as it is, so zstd may well pay.
    public static let storedAsIs: [TypeIdentifier] = [
        "org.gnu.gnu-tar-archive", "public.disk-image", "com.microsoft.bmp", "public.tiff", "com.microsoft.ico",
        "public.svg-image", "com.microsoft.waveform-audio", "public.aiff-audio", "mime.image.x-portable-anymap",
        "mime.image.x-xpixmap", "mime.image.x-xbitmap", "mime.image.x-tga",
    ]

    /// MIME types of compressed formats outside those families.
    public static let compressedMIMETypes: Set<String> = [
        "application/zstd", "application/x-xz", "application/x-lzma", "application/x-lz4", "application/x-lzip",
        "application/x-lzop", "application/x-compress", "application/gzip", "application/x-bzip2",
        "application/x-brotli", "application/vnd.debian.binary-package", "application/x-rpm", "application/x-squashfs",
        "font/woff", "font/woff2",
    ]

    private let registry: TypeRegistry

    /// The rule over `registry`, the sender's types.
    public init(registry: TypeRegistry) {
        self.registry = registry
    }

    /// Whether a file named `fileName` is known to be compressed (only its last path component is
    /// used; the content is not read).
    public func isCompressed(fileName: String) -> Bool {
        let candidates = registry.types(forFileName: fileName)
        return !candidates.isEmpty && candidates.allSatisfy(isCompressed)
    }

    /// Whether files of type `type` are known to be compressed.
    public func isCompressed(_ type: TypeIdentifier) -> Bool {
        if Self.storedAsIs.contains(where: { registry.conforms(type, to: $0) }) { return false }
        if Self.families.contains(where: { registry.conforms(type, to: $0) }) { return true }
        return ([type] + registry.supertypes(of: type)).contains { identifier in
            registry.record(for: identifier)?.mimeTypes.contains(where: Self.isCompressedMIMEType) ?? false
        }
    }

    /// Whether a MIME type names a compressed format: one of ``compressedMIMETypes``, a `+zip`
    /// format (EPUB, OpenDocument...) or a subtype that says `compressed`.
    public static func isCompressedMIMEType(_ mimeType: String) -> Bool {
        let lowered = mimeType.lowercased()
        if compressedMIMETypes.contains(lowered) || lowered.hasSuffix("+zip") { return true }
        guard let slash = lowered.firstIndex(of: "/") else { return false }
        return lowered[slash...].contains("compressed") || lowered.hasPrefix("application/vnd.oasis.opendocument.")
    }
}
