// ShareTLS: a team CA's certificate, checked before it may vouch for anyone.

public import Foundation

/// A team CA's certificate that passed share's checks: one self-signed root certificate with basicConstraints
/// CA:TRUE and, if it has a keyUsage extension, keyCertSign.
///
/// Validity dates are not checked here: an expired CA can still be listed and removed; it simply vouches for
/// no one (``TrustAnchors`` never reports a peer as CA-trusted through it).
///
/// `@unchecked Sendable`: every stored property is a `let` and the wrapped `X509` is never modified; OpenSSL
/// allows concurrent read-only use of it.
public final class CACertificate: @unchecked Sendable {
    /// The certificate.
    let certificate: Certificate

    /// Its subject, fingerprint and dates.
    public let info: CAInfo

    /// The certificate in PEM form, as stored in the config folder.
    public let pem: String

    private init(certificate: Certificate, info: CAInfo, pem: String) {
        self.certificate = certificate
        self.info = info
        self.pem = pem
    }

    /// Parses and checks a team CA certificate.
    ///
    /// - Parameters:
    ///   - pem: the PEM text: exactly one certificate, and no private key.
    ///   - source: where it came from (a file name), for messages.
    /// - Throws: ``TrustAnchorError`` saying what is wrong and what to give instead.
    public static func parse(pem: String, source: String) throws(TrustAnchorError) -> CACertificate {
        let bytes = Array(pem.utf8)
        if containsASCII(bytes, "PRIVATE KEY-----") {
            throw .containsPrivateKey(source: source)
        }
        let certificates: [Certificate]
        switch Certificate.readAll(pem: bytes) {
        case .success(let parsed): certificates = parsed
        case .failure(let problem): throw .notACertificate(source: source, detail: problem.detail)
        }
        guard certificates.count == 1 else {
            throw .severalCertificates(source: source, count: certificates.count)
        }
        let certificate = certificates[0]
        let subject = certificate.subjectName
        if !certificate.isCertificateAuthority {
            let reason =
                certificate.hasCABasicConstraints
                ? "its key usage does not include keyCertSign (certificate signing)"
                : "its basic constraints do not say CA:TRUE"
            throw .notACertificateAuthority(source: source, subject: subject, reason: reason)
        }
        if !certificateClaimsSelfIssued(certificate.pointer) {
            throw .notSelfSigned(source: source, subject: subject, issuer: certificate.issuerName)
        }
        if !certificate.isSelfSigned {
            throw .notACertificate(source: source, detail: "its self-signature does not verify: it is damaged or forged")
        }
        guard let notBefore = certificate.notBefore, let notAfter = certificate.notAfter else {
            throw .unreadableDates(source: source)
        }
        guard let fingerprint = certificate.certificateSHA256 else {
            throw .openSSL(operation: "hashing the CA certificate", reasons: ["i2d_X509 failed"])
        }
        let canonical = certificate.pem
        let info = CAInfo(
            subject: subject, commonName: certificate.commonName, fingerprint: fingerprint, notBefore: notBefore,
            notAfter: notAfter)
        return CACertificate(certificate: certificate, info: info, pem: canonical.isEmpty ? pem : canonical)
    }
}
