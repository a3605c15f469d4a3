/// Why a text could not be made into a QR code.
public struct QRCodeError: Error, Sendable, CustomStringConvertible {
    /// What happened, for a person.
    public let description: String

    init(_ description: String) { self.description = description }
}
