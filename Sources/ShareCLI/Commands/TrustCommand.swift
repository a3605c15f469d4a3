/// `share trust`: the group of commands that manage whom this machine trusts.
///
/// Only the parent spec lives here; each subcommand group registers itself in
/// ``CommandTable`` (`share trust ca ...`: ``TrustCACommand``).
enum TrustCommand {
    static let spec = CommandSpec(
        name: "trust",
        abstract: "Manage the machines and team CAs this machine trusts.",
        discussion: """
            A machine is identified by the fingerprint of its key. Machines can also be trusted \
            because a team certificate authority (CA) that you added vouches for them: see \
            'share trust ca'.
            """,
        subcommands: [TrustCACommand.spec],
        runnable: false
    )
}
