/// A desktop notification as the freedesktop Notifications specification (1.2) describes it: a
/// summary, a body, buttons (actions), an urgency and an expiry.
public struct DesktopNotification: Sendable, Equatable {
    /// A button: the key the server reports when it is clicked, and its label.
    public struct Action: Sendable, Equatable {
        /// Reported in `ActionInvoked` (`default` is the click on the notification itself).
        public var key: String
        /// What the button says.
        public var label: String

        /// Creates an action.
        public init(key: String, label: String) {
            self.key = key
            self.label = label
        }
    }

    /// How urgent it is (the `urgency` hint): servers may keep a critical one until it is answered.
    public enum Urgency: UInt8, Sendable {
        case low = 0
        case normal = 1
        case critical = 2
    }

    /// When the server removes it by itself.
    public enum Expiry: Sendable, Equatable {
        /// The server decides (`expire_timeout` -1).
        case serverDefault
        /// It stays until closed or answered (`expire_timeout` 0).
        case never
        /// After this long.
        case after(Duration)

        /// The `expire_timeout` argument of `Notify`, in milliseconds.
        var milliseconds: Int32 {
            switch self {
            case .serverDefault: -1
            case .never: 0
            case .after(let duration):
                Int32(
                    clamping: max(
                        1, duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
                )
            }
        }
    }

    /// A piece of a body: plain text, or a web address the server may show as a link.
    public enum BodyPart: Sendable, Equatable {
        /// Text shown as it is (escaped when the server reads markup).
        case text(String)
        /// A web address (`http` or `https`): a link where the server shows links
        /// (`body-hyperlinks`), else plain text. Only the user's click on it can open it, through
        /// the server; share never opens it and gives it no action.
        case link(String)

        /// The text the part shows.
        public var text: String {
            switch self {
            case .text(let text), .link(let text): text
            }
        }
    }

    /// One line: what happened. Plain text.
    public var summary: String
    /// The details, in parts (``BodyPart``): text, and web addresses shown as links where the
    /// server can.
    public var bodyParts: [BodyPart]
    /// The details as plain text. It is escaped when the server reads markup
    /// (``NotificationServer/readsMarkup``), so a peer's name can never become a link or an image.
    /// Setting it makes the body one text part.
    public var body: String {
        get { bodyParts.map(\.text).joined() }
        set { bodyParts = [.text(newValue)] }
    }
    /// Buttons, in order.
    public var actions: [Action]
    /// How urgent it is.
    public var urgency: Urgency
    /// When it goes away by itself.
    public var expiry: Expiry
    /// The application's name (`app_name`).
    public var appName = "share"
    /// An icon name from the icon theme (`app_icon`), or empty.
    public var icon = ""
    /// The `category` hint (`transfer`, `transfer.complete`, `transfer.error`, ...), if any.
    public var category: String?
    /// The `desktop-entry` hint: the desktop file (without `.desktop`) of the application.
    public var desktopEntry: String?
    /// The id of a notification this one replaces, or 0.
    public var replacesID: UInt32 = 0

    /// Creates a notification whose body has links (``BodyPart/link(_:)``).
    public init(
        summary: String, bodyParts: [BodyPart], actions: [Action] = [], urgency: Urgency = .normal,
        expiry: Expiry = .serverDefault
    ) {
        self.init(summary: summary, actions: actions, urgency: urgency, expiry: expiry)
        self.bodyParts = bodyParts
    }

    /// Creates a notification.
    public init(
        summary: String, body: String = "", actions: [Action] = [], urgency: Urgency = .normal,
        expiry: Expiry = .serverDefault
    ) {
        self.summary = summary
        self.bodyParts = [.text(body)]
        self.actions = actions
        self.urgency = urgency
        self.expiry = expiry
    }
}
