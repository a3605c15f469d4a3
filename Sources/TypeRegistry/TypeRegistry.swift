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
    public var warnings: [RegistryWarning] { store.warnings }

    /// The merged tables: built in memory, or read in place from a snapshot.
    let store: RegistryStore

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
        let sorted = Self.registrationOrder(applications)
        var builder = RegistryBuilder(
            builtins: includeBuiltinTypes ? BuiltinTypes.declarations : [], sharedMimeInfo: sharedMimeInfo,
            applications: sorted)
        builder.build()
        self.applications = sorted
        self.sharedMimeInfo = sharedMimeInfo
        self.store = .built(
            RegistryTables(
                records: builder.records, declarers: builder.declarers, mimeIndex: builder.mimeIndex,
                mimeToType: builder.mimeToType, names: builder.names, ancestors: builder.ancestors,
                exporters: builder.exporters, warnings: builder.warnings))
    }

    /// A registry read from a snapshot that ``snapshot(key:)`` wrote, without merging anything:
    /// each lookup reads what it needs in place, so answering one question costs well under a
    /// millisecond whatever the size of the database.
    /// - Parameters:
    ///   - bytes: the snapshot file's content.
    ///   - key: what the snapshot must have been written for (see ``snapshot(key:)``).
    ///   - applications: the registered applications the snapshot was made with.
    /// - Throws: ``RegistrySnapshotError`` when the bytes are not a snapshot of this version, are
    ///   damaged, or were written for another key.
    public init(snapshot bytes: [UInt8], key: String, applications: [ApplicationRegistration])
        throws(RegistrySnapshotError)
    {
        let snapshot = try RegistrySnapshot(bytes: bytes, key: key)
        self.applications = Self.registrationOrder(applications)
        self.sharedMimeInfo = SharedMimeInfo(snapshot: snapshot)
        self.store = .snapshot(snapshot)
    }

    /// The registry as a snapshot file (see ``init(snapshot:key:applications:)``): its merged
    /// tables and its shared-mime-info database, laid out to be read in place. Registered
    /// applications are not part of it; give the same ones when reading it.
    /// - Parameter key: a description of everything the registry was made from (the snapshot is
    ///   only read back for the same key).
    /// - Returns: the bytes, or `nil` when some value is too large for the format.
    public func snapshot(key: String) -> [UInt8]? {
        RegistrySnapshotWriter.encode(tables: store.tables, mimeTables: sharedMimeInfo.contents, key: key)
    }

    /// Registrations with one per identifier (ignoring case; the last given wins), oldest first.
    private static func registrationOrder(_ applications: [ApplicationRegistration]) -> [ApplicationRegistration] {
        var unique: [String: ApplicationRegistration] = [:]
        var order: [String] = []
        for application in applications {
            let key = application.applicationID.lowercased()
            if unique[key] == nil { order.append(key) }
            unique[key] = application
        }
        return order.compactMap { unique[$0] }.sorted { a, b in
            if a.registeredAt != b.registeredAt { return a.registeredAt < b.registeredAt }
            return a.applicationID.lowercased() < b.applicationID.lowercased()
        }
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

    private var hasBuiltins: Bool { store.record(.item)?.origin == .builtin }

    private init(sharedMimeInfo: SharedMimeInfo, applications: [ApplicationRegistration], keepingBuiltins: Bool) {
        self.init(includeBuiltinTypes: keepingBuiltins, sharedMimeInfo: sharedMimeInfo, applications: applications)
    }
}
