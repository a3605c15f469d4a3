import ShareDocuments

/// Text from peers (or files) made safe for the terminal.
enum TerminalText {
    /// Escapes control and bidirectional characters.
    static func safe(_ text: String) -> String { DisplayText.escape(text) }
}
