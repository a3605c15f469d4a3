public import Foundation

/// A registered application: its manifest, identity and validated importer.
///
/// It is `Codable`, so a registration can be stored as it is (importer paths already resolved)
/// and loaded at the next start without the original manifest's directory. Decoding does not
/// re-validate: store only registrations this type created.
public struct ApplicationRegistration: Hashable, Sendable, Codable {
    /// `CFBundleIdentifier`, as declared (trimmed). Registrations compare it ignoring case.
    public let applicationID: String
    /// `CFBundleName` (or `CFBundleDisplayName`, or the identifier when neither is given).
    public let name: String
    /// The parsed manifest.
    public let manifest: ApplicationManifest
    /// How the application imports documents; `nil` only when it claims no document types.
    public let importer: ShareImporter?
    /// When the application was registered; earlier registrations win ties between handlers.
    public let registeredAt: Date

    /// Validates a manifest for registration.
    /// - Parameters:
    ///   - manifest: the parsed manifest.
    ///   - paths: where the importer's relative and `~` paths point (usually the manifest's folder and `$HOME`).
    ///   - registeredAt: the registration time; keep the original time when re-loading a stored registration.
    /// - Throws: ``RegistrationError``.
    public init(manifest: ApplicationManifest, paths: ImporterPaths, registeredAt: Date = Date()) throws {
        guard let identifier = manifest.bundleIdentifier, !identifier.isEmpty else {
            throw RegistrationError.missingApplicationIdentifier
        }
        if let reference = BuildSettingReference.references(in: identifier).first {
            throw RegistrationError.unexpandedApplicationIdentifier(identifier, setting: reference.text)
        }
        guard TypeIdentifier(identifier).isRecommendedForm else {
            throw RegistrationError.invalidApplicationIdentifier(identifier)
        }
        var importer: ShareImporter?
        if let declaration = manifest.importer {
            do {
                importer = try ShareImporter(validating: declaration, paths: paths)
            } catch let error as ImporterError {
                throw RegistrationError.invalidImporter(applicationID: identifier, error)
            }
        } else if manifest.handlerClaims.contains(where: \.canHandle) {
            throw RegistrationError.missingImporter(applicationID: identifier)
        }
        self.applicationID = identifier
        self.name = manifest.bundleName.flatMap { $0.isEmpty ? nil : $0 } ?? identifier
        self.manifest = manifest
        self.importer = importer
        self.registeredAt = registeredAt
    }

    /// Reads a manifest file and validates it for registration; relative importer paths are
    /// resolved against the manifest's directory.
    /// - Parameters:
    ///   - path: the manifest (Info.plist-style, XML or binary); a relative path starts at the current directory.
    ///   - homeDirectory: what `~` stands for in importer paths.
    ///   - registeredAt: the registration time.
    ///   - bundleIdentifier: the application's identifier when the user gives it (`--bundle-id`), for a
    ///     manifest whose `CFBundleIdentifier` is an Xcode build setting.
    /// - Returns: the registration; its manifest's ``ApplicationManifest/warnings`` say what was messy.
    /// - Throws: ``ManifestError`` or ``RegistrationError``.
    public static func load(
        manifestAt path: String, homeDirectory: String, registeredAt: Date = Date(), bundleIdentifier: String? = nil
    ) throws -> ApplicationRegistration {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let normalized = ImporterPaths.normalize(absolute)
        let directory = normalized.split(separator: "/").dropLast().joined(separator: "/")
        let manifest = try ApplicationManifest.load(contentsOfFile: normalized, bundleIdentifier: bundleIdentifier)
        let paths = ImporterPaths(baseDirectory: "/" + directory, homeDirectory: homeDirectory)
        return try ApplicationRegistration(manifest: manifest, paths: paths, registeredAt: registeredAt)
    }
}
