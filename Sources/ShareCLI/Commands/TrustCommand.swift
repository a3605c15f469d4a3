/// `share trust`: the peers this machine has verified or blocked.
struct TrustCommand {
    static let spec = CommandSpec(
        name: "trust",
        abstract: "Verify, list, forget and block peers.",
        discussion: """
            A peer is verified when both users compared the verification code shown on each side (on \
            first contact, or with 'share trust verify'); its key is then remembered, and if it comes \
            back with another key it is refused until you remove it here and verify it again. A \
            blocked peer is refused before any prompt.
            """,
        subcommands: [TrustListCommand.spec, TrustVerifyCommand.spec, TrustRemoveCommand.spec, TrustBlockCommand.spec],
        runnable: false
    )
}
