// ShareTLS: what a user needs to know about a team CA.

public import Foundation

/// A team certificate authority, described for people and scripts.
///
/// A CA is named by ``fingerprint``: the SHA-256 of its DER certificate, which is what
/// `openssl x509 -noout -fingerprint -sha256 -in ca.crt` prints (with colons). Unlike a node's fingerprint it
/// names the certificate, not the key: a CA certificate is what a user adds and removes.
public struct CAInfo: Sendable, Hashable, CustomStringConvertible {
    /// The CA certificate's subject in RFC 2253 form, e.g. `CN=Acme Team CA,O=Acme`. It comes from the
    /// certificate: escape it before printing it on a terminal.
    public let subject: String

    /// The subject's common name (CN), if it has one, e.g. `Acme Team CA`.
    public let commonName: String?

    /// SHA-256 of the DER certificate.
    public let fingerprint: Fingerprint

    /// The start of the CA certificate's validity period.
    public let notBefore: Date

    /// The end of the CA certificate's validity period. Certificates it issued are trusted only while it is
    /// valid.
    public let notAfter: Date

    /// The common name if there is one, else the whole subject.
    public var displayName: String { commonName ?? subject }

    /// The ``subject``.
    public var description: String { subject }

    /// Whether the CA certificate is valid at `date`.
    public func isValid(at date: Date = Date()) -> Bool {
        notBefore <= date && date <= notAfter
    }
}
