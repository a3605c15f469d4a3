/// Why an application manifest cannot be registered.
public enum RegistrationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The manifest has no `CFBundleIdentifier`.
    case missingApplicationIdentifier
    /// `CFBundleIdentifier` is not a reverse-DNS identifier.
    case invalidApplicationIdentifier(String)
    /// `CFBundleIdentifier` holds an Xcode build setting (`$(PRODUCT_BUNDLE_IDENTIFIER)`) that only
    /// Xcode fills in; the user must give the identifier.
    case unexpandedApplicationIdentifier(String, setting: String)
    /// The application claims document types but has no `ShareImporter`.
    case missingImporter(applicationID: String)
    /// The `ShareImporter` is unusable.
    case invalidImporter(applicationID: String, ImporterError)

    /// A message for the user saying what is wrong and how to fix the manifest.
    public var description: String {
        switch self {
        case .missingApplicationIdentifier:
            "The manifest has no CFBundleIdentifier; add one such as com.example.myapp."
        case .invalidApplicationIdentifier(let identifier):
            "CFBundleIdentifier '\(identifier)' is not a reverse-DNS identifier (letters, digits, '-' and '.', e.g. com.example.myapp)."
        case .unexpandedApplicationIdentifier(let identifier, let setting):
            "CFBundleIdentifier is '\(identifier)': \(setting) is an Xcode build setting, filled in only when Xcode builds the app. Give the application's identifier with --bundle-id, e.g. 'share types register Info.plist --bundle-id com.example.myapp'."
        case .missingImporter(let applicationID):
            "\(applicationID) claims document types (CFBundleDocumentTypes) but has no ShareImporter saying how to import them; add a ShareImporter dictionary."
        case .invalidImporter(let applicationID, let error):
            "\(applicationID): \(error)"
        }
    }
}
