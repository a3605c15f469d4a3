/// `share types`: the type registry (a group of subcommands).
struct TypesCommand {
    static let spec = CommandSpec(
        name: "types",
        abstract: "Register applications and look up document types.",
        discussion: """
            Every document share receives is typed by the local type registry: built-in Uniform Type \
            Identifiers, the freedesktop shared-mime-info database of this machine, and the applications \
            registered here. The application that claims a type with the best rank imports documents of \
            that type (its ShareImporter says how); documents no application takes are placed in the \
            receive folder. See docs/TYPES.md.
            """,
        subcommands: [
            TypesRegisterCommand.spec, TypesUnregisterCommand.spec, TypesListCommand.spec, TypesShowCommand.spec,
            TypesInspectCommand.spec, TypesResolveCommand.spec,
        ],
        runnable: false
    )
}
