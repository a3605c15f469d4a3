/// The tables of a ``SharedMimeInfo`` database held in memory (see ``RegistrySnapshot`` for the
/// same tables read in place from a file).
struct MimeTables: Sendable {
    /// Every type, by canonical lower-cased MIME type.
    var definitions: [String: MimeTypeDefinition] = [:]
    /// Alias → canonical MIME type.
    var aliases: [String: String] = [:]
    /// Problems found while reading.
    var warnings: [String] = []
    /// The files read, in reading order.
    var sources: [String] = []
    /// Every type's canonical name, sorted: the order types are indexed and joined in.
    var sortedTypes: [String] = []
    /// Every magic rule with its type, in the order they are tried.
    var magic: [(mimeType: String, rule: MagicRule)] = []
}
