import ShareDocuments
import ShareKit

/// What `share receive` runs with: each option where it was given, else the settings file
/// (`share config`), else the default.
struct ReceiveSettings: Sendable, Equatable {
    /// The TCP port (0: a free one).
    var port: UInt16
    /// The name to be seen as.
    var name: String
    /// The receive folder, absolute.
    var directory: String
    /// Whom to accept from.
    var policy: ReceivePolicy
    /// With `everyone`: how long before going back to `ask` (nil: no limit).
    var everyoneFor: Duration?
    /// Whether files inside received folders keep their execute bits.
    var executableBits: ExecutableBits
    /// Whether senders may compress DATA (the setting `compression`; default on).
    var compression = true

    /// The receive options of the command line; nil where one was not given.
    struct Options: Sendable {
        var port: UInt16?
        var name: String?
        var directory: String?
        var policy: ReceivePolicy?
        var everyoneFor: Duration?
        /// `--keep-executables` (nil when not given: the setting decides).
        var executableBits: ExecutableBits?

        /// Checks and binds `--port`, `--name`, `--dir`, `--accept`, `--everyone-for` and
        /// `--keep-executables`.
        init(_ parsed: ParsedArguments) throws(UsageError) {
            port = try parsed.integer("port", in: 0...65535).map { UInt16($0) }
            directory = parsed.value("dir")
            if let directory, let problem = ReceiveCommand.unsafeFolderProblem(directory) {
                throw parsed.usageError("Refusing --dir '\(directory)': \(problem)")
            }
            executableBits = parsed.flag("keep-executables") ? .keptInBundles : nil
            name = parsed.value("name").map { DeviceName.cleaned($0).name }
            if let name, let problem = DeviceName.problem(with: name) {
                throw parsed.usageError("Invalid name '\(name)': \(problem)")
            }
            policy = try parsed.choice("accept", ["ask", "trusted", "everyone", "all"]).map { text in
                text == "all" ? .everyone : ReceivePolicy(rawValue: text)!
            }
            everyoneFor = try parsed.value("everyone-for").map { text throws(UsageError) in
                guard let duration = DurationText.parse(text) else {
                    throw parsed.usageError(
                        "The value '\(text)' is invalid for '--everyone-for'; expected e.g. 90s, 10m or 2h")
                }
                return duration
            }
            if everyoneFor != nil, let policy, policy != .everyone {
                throw parsed.usageError("--everyone-for needs --accept everyone")
            }
        }
    }

    /// Merges `options` over `settings`.
    /// - Throws: a usage error (exit 64) for `--everyone-for` when the policy in force is not `everyone`.
    static func resolve(
        _ options: Options, settings: NodeSettings, paths: SharePaths
    ) throws(CLIError) -> ReceiveSettings {
        let policy = options.policy ?? settings.accept ?? .ask
        if options.everyoneFor != nil && policy != .everyone {
            throw CLIError(
                usage: UsageError(
                    message: "--everyone-for needs --accept everyone (the setting 'accept' is \(policy.rawValue))",
                    commandPath: ["share", "receive"]))
        }
        if options.directory == nil, let folder = settings.receiveFolder,
            let problem = ReceiveCommand.unsafeFolderProblem(folder)
        {
            throw CLIError(
                "refusing the receive folder '\(folder)' of the settings: \(problem) ('share config set dir FOLDER')")
        }
        return ReceiveSettings(
            port: options.port ?? settings.port ?? ReceiverConfiguration.defaultPort,
            name: DeviceName.resolve(explicit: options.name, settings: settings),
            directory: ReceiveCommand.absolute(options.directory ?? settings.receiveFolder ?? paths.downloadDirectory),
            policy: policy,
            everyoneFor: policy == .everyone ? options.everyoneFor ?? settings.everyoneFor : nil,
            executableBits: options.executableBits ?? settings.executeBit ?? .removed,
            compression: settings.compression ?? true)
    }
}
