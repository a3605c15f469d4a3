public import Foundation

/// The type registry: built-in system types, the freedesktop shared-mime-info database and
/// registered applications' manifests, merged into one conformance graph.
///
/// A registry is an immutable `Sendable` value: build it at startup and pass it to whoever
/// needs it; ``registering(_:)`` and ``unregistering(applicationID:)`` return new registries.
///
/// How the sources merge:
/// - Each identifier has one definition in use: the built-in one, else the first exported
///   declaration (by registration time), else the first imported one, whose tags are then the
///   union of every imported copy. Losing declarations are kept for ``explain(_:)`` and reported
///   in ``warnings`` when they disagree.
/// - Each shared-mime-info MIME type joins the declared type that lists it (or one of its
///   aliases) as a MIME tag, else the declared type that declares one of its `*.ext` globs (when
///   no other MIME type has that glob); its globs and aliases become tags of that type. Any other
///   MIME type becomes a type of its own, `mime.<media>.<subtype>` (for example
///   `mime.application.x-awk`), whose parents follow `sub-class-of` (so `text/*` types reach
///   `public.plain-text`, everything else `public.data`), plus `public.image`, `public.audio`,
///   `public.movie` or `public.font` by media type.
/// - A link that closes a conformance cycle is dropped; a declared type that does not reach
///   `public.item` gets `public.data` as an extra parent. Both are reported in ``warnings``.
public struct TypeRegistry: Sendable {
    /// The registered applications, oldest registration first.
    public let applications: [ApplicationRegistration]
    /// The shared-mime-info database the registry was built with.
    public let sharedMimeInfo: SharedMimeInfo
    /// Problems found while merging (for `share types doctor`-style reports).
    public let warnings: [RegistryWarning]

    let records: [TypeIdentifier: TypeRecord]
    let declarers: [TypeIdentifier: [TypeDeclarer]]
    let mimeIndex: [String: [TypeIdentifier]]
    let mimeToType: [String: TypeIdentifier]
    let names: GlobIndex<GlobTarget>
    let ancestors: [TypeIdentifier: [TypeIdentifier]]
    let exporters: [TypeIdentifier: String]

    /// Builds a registry.
    /// - Parameters:
    ///   - includeBuiltinTypes: whether to start from ``BuiltinTypes`` (tests may leave them out).
    ///   - sharedMimeInfo: the freedesktop database, or an empty one.
    ///   - applications: registered applications; a later registration with the same identifier
    ///     (ignoring case) replaces an earlier one.
    public init(
        includeBuiltinTypes: Bool = true, sharedMimeInfo: SharedMimeInfo = SharedMimeInfo(),
        applications: [ApplicationRegistration] = []
    ) {
        var unique: [String: ApplicationRegistration] = [:]
        var order: [String] = []
        for application in applications {
            let key = application.applicationID.lowercased()
            if unique[key] == nil { order.append(key) }
            unique[key] = application
        }
        let sorted = order.compactMap { unique[$0] }.sorted { a, b in
            if a.registeredAt != b.registeredAt { return a.registeredAt < b.registeredAt }
            return a.applicationID.lowercased() < b.applicationID.lowercased()
        }
        var builder = RegistryBuilder(
            builtins: includeBuiltinTypes ? BuiltinTypes.declarations : [], sharedMimeInfo: sharedMimeInfo,
            applications: sorted)
        builder.build()
        self.applications = sorted
        self.sharedMimeInfo = sharedMimeInfo
        self.warnings = builder.warnings
        self.records = builder.records
        self.declarers = builder.declarers
        self.mimeIndex = builder.mimeIndex
        self.mimeToType = builder.mimeToType
        self.names = builder.names
        self.ancestors = builder.ancestors
        self.exporters = builder.exporters
    }

    /// Builds a registry from the built-in types, the shared-mime-info database of the XDG
    /// directories (see ``SharedMimeInfo/defaultPackageDirectories(environment:)``) and the given applications.
    /// - Parameters:
    ///   - environment: the process environment, for `HOME`, `XDG_DATA_HOME` and `XDG_DATA_DIRS`.
    ///   - applications: registered applications.
    /// > Note: this reads the installed database, a few MB of XML: do it once at startup.
    public static func load(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        applications: [ApplicationRegistration] = []
    ) -> TypeRegistry {
        let directories = SharedMimeInfo.defaultPackageDirectories(environment: environment)
        return TypeRegistry(
            sharedMimeInfo: SharedMimeInfo.load(packageDirectories: directories), applications: applications)
    }

    /// A registry with one more application; an earlier registration with the same identifier is replaced.
    public func registering(_ application: ApplicationRegistration) -> TypeRegistry {
        let others = applications.filter { $0.applicationID.lowercased() != application.applicationID.lowercased() }
        return TypeRegistry(
            sharedMimeInfo: sharedMimeInfo, applications: others + [application], keepingBuiltins: hasBuiltins)
    }

    /// A registry without an application's declarations and claims. Types it declared stay
    /// known if another application (or the system) declares them too.
    public func unregistering(applicationID: String) -> TypeRegistry {
        let others = applications.filter { $0.applicationID.lowercased() != applicationID.lowercased() }
        return TypeRegistry(sharedMimeInfo: sharedMimeInfo, applications: others, keepingBuiltins: hasBuiltins)
    }

    /// The registration of an application, by identifier (ignoring case).
    public func application(_ applicationID: String) -> ApplicationRegistration? {
        applications.first { $0.applicationID.lowercased() == applicationID.lowercased() }
    }

    private var hasBuiltins: Bool { records[.item]?.origin == .builtin }

    private init(sharedMimeInfo: SharedMimeInfo, applications: [ApplicationRegistration], keepingBuiltins: Bool) {
        self.init(includeBuiltinTypes: keepingBuiltins, sharedMimeInfo: sharedMimeInfo, applications: applications)
    }
}
