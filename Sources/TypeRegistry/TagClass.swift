/// A namespace of tags that map to types, such as filename extensions or MIME types.
///
/// Tag classes are themselves type identifiers. Values are compared case-insensitively; a
/// tag class this library does not know (for example `com.apple.ostype`) still round-trips.
public struct TagClass: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The tag class identifier, lower-cased.
    public let rawValue: String

    /// Creates a tag class from its identifier.
    /// - Parameter rawValue: for example `public.filename-extension`.
    public init(rawValue: String) {
        self.rawValue = rawValue.trimmingTypeWhitespace().lowercased()
    }

    /// The identifier of the tag class.
    public var description: String { rawValue }

    /// `public.filename-extension`: extensions, written without the leading dot.
    public static let filenameExtension = TagClass(rawValue: "public.filename-extension")
    /// `public.mime-type`: MIME types such as `image/png`.
    public static let mimeType = TagClass(rawValue: "public.mime-type")
}
