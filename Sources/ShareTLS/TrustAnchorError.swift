// ShareTLS: why a certificate cannot be used as a team CA.

/// A certificate offered as a team CA (`share trust ca add`) that share refuses, or a trust-anchor set that
/// OpenSSL could not build.
///
/// Every case that concerns a file names it (`source`).
public enum TrustAnchorError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The text holds no usable PEM certificate.
    case notACertificate(source: String, detail: String)

    /// The file holds a private key: the CA's key must never be handed to share.
    case containsPrivateKey(source: String)

    /// The file holds several certificates; a CA is added one certificate at a time.
    case severalCertificates(source: String, count: Int)

    /// The certificate is not a CA (no basicConstraints CA:TRUE, or a keyUsage without keyCertSign).
    case notACertificateAuthority(source: String, subject: String, reason: String)

    /// The certificate is a CA, but not a self-signed root one.
    case notSelfSigned(source: String, subject: String, issuer: String)

    /// The certificate's validity dates cannot be read.
    case unreadableDates(source: String)

    /// OpenSSL failed while building the trust store (not caused by any file).
    case openSSL(operation: String, reasons: [String])

    /// A sentence for the user saying what happened and what to do.
    public var description: String {
        switch self {
        case .notACertificate(let source, let detail):
            return "\(source) is not a PEM certificate (\(detail)). Give the team CA's certificate (ca.crt, "
                + "`-----BEGIN CERTIFICATE-----`)."
        case .containsPrivateKey(let source):
            return "\(source) contains a private key. share needs only the team CA's certificate (ca.crt); never "
                + "give out the CA's key (ca.key): whoever has it can vouch for any machine."
        case .severalCertificates(let source, let count):
            return "\(source) holds \(count) certificates; add the team CA's certificate alone (ca.crt)."
        case .notACertificateAuthority(let source, let subject, let reason):
            return "\(source) (\(subject)) is not a CA certificate: \(reason). Add the team CA's own certificate "
                + "(ca.crt made by share-team-ca init), not a node's."
        case .notSelfSigned(let source, let subject, let issuer):
            return "\(source) (\(subject)) was issued by \(issuer): it is not a root CA. Add the team's root CA "
                + "certificate (self-signed) instead."
        case .unreadableDates(let source):
            return "The validity dates of \(source) cannot be read; the certificate is damaged."
        case .openSSL(let operation, let reasons):
            return "OpenSSL failed while \(operation): \(reasons.joined(separator: "; ")). This is not caused by "
                + "your files; please report it with the OpenSSL version (`openssl version`)."
        }
    }
}
