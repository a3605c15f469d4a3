/// The first frame each side sends: protocol version, the device name to show, the optional
/// features this side supports, and who takes part on this side (docs/PROTOCOL.md §4, §6).
public struct Hello: Sendable, Hashable {
    /// The 4-byte magic that starts every HELLO: `SHR1` (the same in every version).
    public static let magic: [UInt8] = Array("SHR1".utf8)
    /// The protocol version this implementation speaks.
    public static let currentVersion: UInt8 = 2

    /// The sender's protocol version.
    public var version: UInt8
    /// The device name, for display only (never trusted, always escaped before printing).
    public var name: String
    /// The optional features this side supports.
    public var features: HelloFeatures
    /// Whether a person takes part on this side, and whether this side will compare the code.
    public var flags: HelloFlags

    /// Creates a HELLO for `name` at the current version.
    public init(name: String, features: HelloFeatures = [], flags: HelloFlags = [], version: UInt8 = Hello.currentVersion) {
        self.name = name
        self.version = version
        self.features = features
        self.flags = flags
    }

    /// Clamps a device name to what HELLO can carry: 1...255 bytes, no control characters.
    public static func sanitizedName(_ name: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in name.unicodeScalars where scalar.value >= 0x20 && !(0x7F...0x9F).contains(scalar.value) {
            scalars.append(scalar)
        }
        var text = Substring(String(scalars))
        while text.utf8.count > 255 { text = text.dropLast() }
        return text.isEmpty ? "share" : String(text)
    }
}
