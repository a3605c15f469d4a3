/// The notification server on the session bus (`GetServerInformation`, `GetCapabilities`).
public struct NotificationServer: Sendable, Equatable {
    /// Its name (`dunst`, `gnome-shell`, `Plasma`, ...).
    public var name: String
    /// Who makes it.
    public var vendor: String
    /// Its version.
    public var version: String
    /// The version of the specification it implements.
    public var specificationVersion: String
    /// What it can do (`actions`, `body`, `body-markup`, `persistence`, ...).
    public var capabilities: Set<String>

    /// Whether it reads markup in bodies: it says so (`body-markup`), or it shows links
    /// (`body-hyperlinks`, as dunst does without saying `body-markup`). Bodies are then escaped.
    public var readsMarkup: Bool { capabilities.contains("body-markup") || capabilities.contains("body-hyperlinks") }

    /// Whether it shows buttons (``DesktopNotification/actions``), which asking needs.
    public var supportsActions: Bool { capabilities.contains("actions") }

    /// Whether it shows links in bodies (`body-hyperlinks`): ``DesktopNotification/BodyPart/link(_:)``
    /// parts are then sent as `<a href>` markup.
    public var showsLinks: Bool { capabilities.contains("body-hyperlinks") }
}
