/// Every command of `share`, and the root spec built from them.
enum CommandTable {
    /// Command types by path (`share send` -> SendCommand).
    nonisolated(unsafe) static let commands: [String: any ShareCommand.Type] = [
        "share receive": ReceiveCommand.self,
        "share peers": PeersCommand.self,
        "share send": SendCommand.self,
        "share identity": IdentityCommand.self,
        "share identity set-name": IdentitySetNameCommand.self,
        "share trust list": TrustListCommand.self,
        "share trust verify": TrustVerifyCommand.self,
        "share trust remove": TrustRemoveCommand.self,
        "share trust block": TrustBlockCommand.self,
        "share types register": TypesRegisterCommand.self,
        "share types unregister": TypesUnregisterCommand.self,
        "share types list": TypesListCommand.self,
        "share types show": TypesShowCommand.self,
        "share types inspect": TypesInspectCommand.self,
        "share types resolve": TypesResolveCommand.self,
        "share inbox list": InboxListCommand.self,
        "share inbox import": InboxImportCommand.self,
        "share inbox remove": InboxRemoveCommand.self,
        "share identity csr": IdentityCSRCommand.self,
        "share identity import-cert": IdentityImportCertCommand.self,
        "share trust ca add": TrustCAAddCommand.self,
        "share trust ca list": TrustCAListCommand.self,
        "share trust ca remove": TrustCARemoveCommand.self,
        "share history": HistoryCommand.self,
        "share completion": CompletionCommand.self,
        "share __man-pages": ManPagesCommand.self,
        "share config list": ConfigListCommand.self,
        "share config get": ConfigGetCommand.self,
        "share config set": ConfigSetCommand.self,
        "share config unset": ConfigUnsetCommand.self,
    ]

    /// The root of the command tree.
    static let root = CommandSpec(
        name: "share",
        abstract: "Send files and document bundles to nearby machines, securely.",
        discussion: """
            share finds machines on the local network that run 'share receive' and sends them files \
            and folders over mutually authenticated TLS 1.3. A folder is sent as one document (a bundle) \
            and lands whole or not at all; every file is checked with SHA-256 before it is kept.
            """,
        subcommands: [
            ReceiveCommand.spec, PeersCommand.spec, SendCommand.spec, HistoryCommand.spec, TrustCommand.spec, TypesCommand.spec,
            InboxCommand.spec, IdentityCommand.spec, ConfigCommand.spec, CompletionCommand.spec, ManPagesCommand.spec,
        ],
        runnable: false,
        extraSections: [
            (
                "EXIT CODES",
                [
                    "0   success",
                    "1   failure (the message says what happened)",
                    "64  usage error",
                    "69  a needed service (avahi-daemon) is unavailable",
                ]
            )
        ]
    )

    /// The command type for a resolved path.
    static func command(for path: [CommandSpec]) -> (any ShareCommand.Type)? {
        // Joined by hand: `joined(separator:)` looks its element type up in the Swift runtime by name.
        var key = ""
        for spec in path {
            if !key.isEmpty { key += " " }
            key += spec.name
        }
        return commands[key]
    }
}
