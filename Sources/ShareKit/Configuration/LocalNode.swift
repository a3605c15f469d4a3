public import ShareTLS

/// This machine as share sees it: its identity (key and certificate), settings and folders.
public struct LocalNode: Sendable {
    /// The long-term identity, created on first use.
    public let identity: Identity
    /// The user's settings.
    public let settings: NodeSettings
    /// Where things are kept.
    public let paths: SharePaths

    /// Loads (or on first use creates) the identity and loads the settings.
    /// - Throws: ``LocalNodeError`` describing which file is wrong and what to do.
    public static func load(paths: SharePaths) throws(LocalNodeError) -> LocalNode {
        let identity: Identity
        do {
            identity = try Identity.loadOrCreate(in: paths.configDirectory)
        } catch {
            throw .identity(error)
        }
        let settings: NodeSettings
        do {
            settings = try NodeSettings.load(from: paths.configDirectory)
        } catch {
            throw .settings(error)
        }
        return LocalNode(identity: identity, settings: settings, paths: paths)
    }

    /// The same node with its settings read again (after `share config set`).
    /// - Throws: ``LocalNodeError/settings(_:)`` when the file cannot be read or holds an invalid value.
    public func reloadingSettings() throws(LocalNodeError) -> LocalNode {
        do {
            return LocalNode(identity: identity, settings: try NodeSettings.load(from: paths.configDirectory), paths: paths)
        } catch {
            throw .settings(error)
        }
    }

    /// The device name: `explicit` if given, else the configured one, else the host name.
    public func deviceName(explicit: String? = nil) -> String {
        DeviceName.resolve(explicit: explicit, settings: settings)
    }
}

/// The local identity or settings could not be loaded.
public enum LocalNodeError: Error, Sendable, CustomStringConvertible {
    case identity(IdentityError)
    case settings(ConfigurationError)

    public var description: String {
        switch self {
        case .identity(let error): error.description
        case .settings(let error): error.description
        }
    }
}
