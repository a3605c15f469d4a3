public import Foundation

/// What an application's Info.plist-style manifest declares: its identity, its types, the
/// documents it opens and how it imports them.
///
/// Loading never fails on messy content: strings where arrays belong, stray whitespace,
/// mixed-case keys and values, a type listed as its own parent, conformance cycles, a type
/// declared twice, `*` wildcard claims and unusable values all load, each reported in
/// ``warnings`` with its location. Only bytes that are not a property list dictionary throw.
public struct ApplicationManifest: Hashable, Sendable, Codable {
    /// The largest manifest accepted, in bytes.
    public static let maximumSize = 8 * 1024 * 1024

    /// `CFBundleIdentifier`, trimmed.
    public var bundleIdentifier: String?
    /// `CFBundleName`, or `CFBundleDisplayName` when there is no name, trimmed.
    public var bundleName: String?
    /// `UTExportedTypeDeclarations` then `UTImportedTypeDeclarations`, as declared.
    public var declaredTypes: [DeclaredType]
    /// `CFBundleDocumentTypes`, as declared.
    public var documentTypes: [DocumentType]
    /// The `ShareImporter` dictionary, not yet validated.
    public var importer: ImporterDeclaration?
    /// Every problem found, with its location.
    public var warnings: [ManifestWarning]
    /// The usable type declarations, cleaned up (one per identifier; exported beats imported;
    /// `public.*` and `com.apple.*` exports downgraded to imported; self-parents and cycle-closing
    /// parents removed; a type with no parent gets `public.data`).
    public var typeDeclarations: [TypeDeclaration]
    /// The usable document type claims, cleaned up.
    public var handlerClaims: [HandlerClaim]

    /// Creates a manifest from its parts.
    public init(
        bundleIdentifier: String?, bundleName: String?, declaredTypes: [DeclaredType], documentTypes: [DocumentType],
        importer: ImporterDeclaration?, warnings: [ManifestWarning], typeDeclarations: [TypeDeclaration],
        handlerClaims: [HandlerClaim]
    ) {
        self.bundleIdentifier = bundleIdentifier
        self.bundleName = bundleName
        self.declaredTypes = declaredTypes
        self.documentTypes = documentTypes
        self.importer = importer
        self.warnings = warnings
        self.typeDeclarations = typeDeclarations
        self.handlerClaims = handlerClaims
    }

    /// Parses a manifest from XML, binary or OpenStep property list bytes.
    ///
    /// A manifest as it sits in an Xcode project loads too: its C preprocessor lines (`#ifdef` ...
    /// `#endif`) are skipped with a warning per line, and values holding Xcode build settings
    /// (`$(PRODUCT_BUNDLE_IDENTIFIER)`, `${PRODUCT_NAME}`) are never used as identifiers or names.
    /// - Parameters:
    ///   - data: the property list.
    ///   - bundleIdentifier: the application's identifier when the user gives it: it replaces
    ///     `CFBundleIdentifier` and fills in every `$(PRODUCT_BUNDLE_IDENTIFIER)`.
    /// - Returns: the manifest, with any problems in ``warnings``.
    /// - Throws: ``ManifestError`` when the bytes are too large, not a property list, or not a dictionary.
    public static func parse(_ data: Data, bundleIdentifier: String? = nil) throws -> ApplicationManifest {
        guard data.count <= maximumSize else {
            throw ManifestError.tooLarge(byteCount: data.count, limit: maximumSize)
        }
        let (cleaned, lineWarnings) = PreprocessorLines.strip(data)
        let root: Any
        do {
            var format = PropertyListSerialization.PropertyListFormat.xml
            root = try PropertyListSerialization.propertyList(from: cleaned, options: [], format: &format)
        } catch {
            throw ManifestError.notAPropertyList(reason: Self.shortReason(error))
        }
        guard let dictionary = PlistValue.dictionary(root) else {
            throw ManifestError.rootIsNotADictionary(found: PlistValue.kindName(root))
        }
        var parser = ManifestParser(bundleIdentifier: bundleIdentifier, warnings: lineWarnings)
        return parser.parse(dictionary)
    }

    /// Reads and parses a manifest file.
    /// - Parameters:
    ///   - path: the file's path.
    ///   - bundleIdentifier: the application's identifier when the user gives it (see ``parse(_:bundleIdentifier:)``).
    /// - Returns: the manifest, with any problems in ``warnings``.
    /// - Throws: ``ManifestError``.
    public static func load(contentsOfFile path: String, bundleIdentifier: String? = nil) throws
        -> ApplicationManifest
    {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        if let size = attributes?[.size] as? Int, size > maximumSize {
            throw ManifestError.tooLarge(byteCount: size, limit: maximumSize)
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ManifestError.unreadable(path: path, reason: Self.shortReason(error))
        }
        return try parse(data, bundleIdentifier: bundleIdentifier)
    }

    /// What `share types inspect` prints for this manifest.
    public var inspection: ManifestInspection {
        ManifestInspection(
            declaredTypes: declaredTypes, documentTypes: documentTypes, warnings: warnings.map(\.description))
    }

    private static func shortReason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let debug = nsError.userInfo["NSDebugDescription"] as? String { return debug }
        return nsError.localizedDescription
    }
}
