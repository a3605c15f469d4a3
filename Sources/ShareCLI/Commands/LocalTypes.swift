import ShareKit
import TypeRegistry

/// The type registry and application store of the user running a command.
enum LocalTypes {
    /// Where `share types register` stores registrations.
    static func store(_ context: CommandContext) -> ApplicationStore {
        ApplicationStore(directory: context.paths.applicationsDirectory)
    }

    /// Built-in types, the installed shared-mime-info database and the registered applications;
    /// registrations that cannot be read are reported as warnings.
    static func registry(_ context: CommandContext) -> TypeRegistry {
        let provider = RegistryProvider(applications: store(context), environment: context.console.environment)
        let (registry, problems) = provider.currentWithProblems()
        for problem in problems { context.console.warning(TerminalText.safe(problem)) }
        return registry
    }

    /// What a sender declares types from: the built-in types and the registered applications.
    /// The shared-mime-info database is left out: its types matter only to a receiver that has
    /// the same database and resolves the name itself anyway, and reading it costs more than the
    /// rest of a small send in a debug build.
    static func senderRegistry(_ context: CommandContext) -> TypeRegistry {
        TypeRegistry(applications: store(context).load().applications)
    }

    /// What a person can read for `type`: its declared description, else the comment shared-mime-info
    /// has for its MIME type, else for a `dyn.` type what it was made from (`unknown type (.qqq
    /// files)`), else the identifier.
    static func describe(_ type: TypeIdentifier, registry: TypeRegistry, environment: [String: String]) -> String {
        if let dynamic = DynamicType.readableDescription(of: type) { return dynamic }
        let record = registry.record(for: type)
        return record?.description
            ?? record?.mimeTypes.lazy.compactMap { RegistryProvider.comment(forMIMEType: $0, environment: environment) }.first
            ?? type.rawValue
    }

    /// `path` made absolute against the current directory.
    static func absolute(_ path: String) -> String {
        ReceiveCommand.absolute(path)
    }
}
