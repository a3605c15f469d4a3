/// How an application declares a type: as its owner, or as a format it only knows.
///
/// An exported declaration (`UTExportedTypeDeclarations`) always wins over an imported one
/// (`UTImportedTypeDeclarations`).
public enum DeclarationKind: String, Hashable, Sendable, Codable {
    /// Declared in `UTExportedTypeDeclarations`: the application owns the format.
    case exported
    /// Declared in `UTImportedTypeDeclarations`: the application uses a format someone else owns.
    case imported
}
