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

    /// `path` made absolute against the current directory.
    static func absolute(_ path: String) -> String {
        ReceiveCommand.absolute(path)
    }
}
