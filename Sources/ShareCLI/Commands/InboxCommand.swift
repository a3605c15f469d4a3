/// `share inbox`: received documents that are waiting for their import (a group of subcommands).
struct InboxCommand {
    static let spec = CommandSpec(
        name: "inbox",
        abstract: "List, retry or remove documents waiting in the inbox.",
        discussion: """
            Every received document passes through the inbox ($XDG_DATA_HOME/share/Inbox) on its way to \
            the application that imports it, or to the receive folder. It leaves the inbox only once \
            that succeeded; when an importer fails or times out, the document stays here, with the \
            reason, until you retry or remove it.
            """,
        subcommands: [InboxListCommand.spec, InboxImportCommand.spec, InboxRemoveCommand.spec],
        runnable: false
    )
}
