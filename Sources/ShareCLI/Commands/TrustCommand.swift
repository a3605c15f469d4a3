/// `share trust`: whom this machine trusts: verified peers, blocked peers and team CAs.
enum TrustCommand {
    static let spec = CommandSpec(
        name: "trust",
        abstract: "Verify, list, forget and block peers; manage team CAs.",
        discussion: """
            A machine is identified by the fingerprint of its key. A peer is verified when both \
            users compared the verification code shown on each side (on first contact, or with \
            'share trust verify'); its key is then remembered, and if it comes back with another key \
            it is refused until you remove it here and verify it again. A blocked peer is refused \
            before any prompt. Machines can also be trusted because a team certificate authority \
            (CA) that you added vouches for them: see 'share trust ca'.
            """,
        subcommands: [
            TrustListCommand.spec, TrustVerifyCommand.spec, TrustRemoveCommand.spec, TrustBlockCommand.spec,
            TrustCACommand.spec,
        ],
        runnable: false
    )
}
