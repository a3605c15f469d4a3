/// What `share types inspect FILE --json` prints: a manifest's declarations as declared.
///
/// The JSON has exactly this shape, keys in this order:
/// ```json
/// {"declaredTypes": [{"identifier", "declaration": "exported"|"imported", "conformsTo": [...],
///                     "extensions": [...], "mimeTypes": [...], "description", "isPackage"}],
///  "documentTypes": [{"name", "role", "rank", "contentTypes": [...], "extensions": [...], "mimeTypes": [...],
///                     "osTypes": [...], "isPackage", "documentClass", "exportableTypes": [...], "icons": [...]}],
///  "warnings": [...]}
/// ```
/// Values are as declared: strings are trimmed of surrounding whitespace, a single string
/// where a list belongs becomes a one-element list, nothing else is normalised (case, dots,
/// duplicates and wildcards stay; the warnings say what the registry does with them). Absent
/// optional values are `null`. Warnings are `"location: message"` strings.
public struct ManifestInspection: Hashable, Sendable, Codable {
    /// Exported declarations, then imported ones, each in manifest order.
    public var declaredTypes: [DeclaredType]
    /// `CFBundleDocumentTypes` entries in manifest order.
    public var documentTypes: [DocumentType]
    /// Every problem found, as `location: message`.
    public var warnings: [String]

    /// Creates an inspection.
    public init(declaredTypes: [DeclaredType], documentTypes: [DocumentType], warnings: [String]) {
        self.declaredTypes = declaredTypes
        self.documentTypes = documentTypes
        self.warnings = warnings
    }

    private enum CodingKeys: String, CodingKey {
        case declaredTypes, documentTypes, warnings
    }

    /// The inspection as an ordered JSON value.
    public var json: JSONText {
        .object([
            (
                "declaredTypes",
                .array(
                    declaredTypes.map { type in
                        .object([
                            ("identifier", .string(type.identifier)),
                            ("declaration", .string(type.declaration.rawValue)),
                            ("conformsTo", .strings(type.conformsTo)),
                            ("extensions", .strings(type.extensions)),
                            ("mimeTypes", .strings(type.mimeTypes)),
                            ("description", .optional(type.description)),
                            ("isPackage", .bool(type.isPackage)),
                        ])
                    })
            ),
            (
                "documentTypes",
                .array(
                    documentTypes.map { document in
                        .object([
                            ("name", .optional(document.name)),
                            ("role", .optional(document.role)),
                            ("rank", .optional(document.rank)),
                            ("contentTypes", .strings(document.contentTypes)),
                            ("extensions", .strings(document.extensions)),
                            ("mimeTypes", .strings(document.mimeTypes)),
                            ("osTypes", .strings(document.osTypes)),
                            ("isPackage", document.isPackage.map(JSONText.bool) ?? .null),
                            ("documentClass", .optional(document.documentClass)),
                            ("exportableTypes", .strings(document.exportableTypes)),
                            ("icons", .strings(document.icons)),
                        ])
                    })
            ),
            ("warnings", .strings(warnings)),
        ])
    }

    /// The JSON text, keys in the documented order.
    /// - Parameter prettyPrinted: two-space indented (the default) or compact.
    public func jsonText(prettyPrinted: Bool = true) -> String {
        json.rendered(prettyPrinted: prettyPrinted)
    }
}
