// ShareTLS: what can go wrong in a TLS connection, told so a user knows what to do.

public import Foundation
import ShareSystem

/// An error from a TLS handshake, read or write.
///
/// Built at the failure site from OpenSSL's error queue, the verification result and the socket's errno, so
/// that each case says precisely what happened.
public enum TLSError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The peer presented no certificate, so it cannot be identified (seen by a server).
    case peerPresentedNoCertificate

    /// The peer refused this side's certificate.
    ///
    /// With TLS 1.3 the server judges the client's certificate after the client has finished its handshake, so
    /// a client learns of this on its first read, not from ``TLSConnection/handshake()``.
    case peerRefusedOurCertificate(Refusal)

    /// This side refused the peer's certificate.
    case peerCertificateRejected(CertificateProblem)

    /// The peer does not speak TLS 1.3: it offered an older version, or is not speaking TLS at all.
    case peerDoesNotSpeakTLS13(ProtocolMismatch)

    /// The peer ended the connection with a TLS alert not covered by the cases above.
    case peerAborted(alert: String)

    /// The socket's receive or send timeout (`SO_RCVTIMEO` / `SO_SNDTIMEO`) expired.
    case timedOut

    /// The connection ended without a TLS close (the peer went away, or the transfer was cancelled with
    /// `shutdown(2)`), or the connection was already closed.
    case connectionClosed

    /// The peer reset the connection.
    case connectionReset

    /// A socket call failed.
    case system(operation: String, errno: Int32)

    /// Any other OpenSSL failure, with OpenSSL's reason strings.
    case openSSL(operation: String, reasons: [String])

    /// Why the peer refused this side's certificate (the TLS alert it sent).
    public enum Refusal: Sendable, Equatable {
        /// This side presented no certificate (alert `certificate_required`).
        case certificateRequired
        /// The peer considers this side's certificate expired (alert `certificate_expired`).
        case certificateExpired
        /// The peer calls this side's certificate bad, e.g. not yet valid (alert `bad_certificate`).
        case badCertificate
        /// The peer does not accept the certificate's issuer (alert `unknown_ca`).
        case unknownIssuer
        /// The peer found a signature that does not verify (alert `decrypt_error`).
        case invalidSignature
        /// Another certificate alert (`unsupported_certificate`, `certificate_unknown`, …).
        case other(alert: String)
    }

    /// What is wrong with the peer's certificate.
    public enum CertificateProblem: Sendable, Equatable {
        /// It expired (at `notAfter`, when known).
        case expired(notAfter: Date?)
        /// It is not valid yet (until `notBefore`, when known): a clock is wrong.
        case notYetValid(notBefore: Date?)
        /// Its signature does not verify: damaged or forged.
        case invalidSignature
        /// Any other verification failure, with OpenSSL's explanation.
        case unacceptable(reason: String)
    }

    /// How the peer fails to speak TLS 1.3.
    public enum ProtocolMismatch: Sendable, Equatable {
        /// It speaks TLS 1.2 or older.
        case olderTLSVersion
        /// It sent an HTTP request (a browser, `curl`, a proxy).
        case httpRequest
        /// It sent bytes that are not TLS at all.
        case notTLS
    }

    /// A sentence for the user saying what happened and what to do.
    public var description: String {
        switch self {
        case .peerPresentedNoCertificate:
            return "The peer presented no certificate, so it cannot be identified; share only accepts peers that "
                + "identify themselves. It is probably not a share node."
        case .peerRefusedOurCertificate(let refusal):
            return refusal.description
        case .peerCertificateRejected(let problem):
            return problem.description
        case .peerDoesNotSpeakTLS13(let mismatch):
            return mismatch.description
        case .peerAborted(let alert):
            return "The peer ended the connection during TLS (alert: \(alert)). Check the peer's own error message."
        case .timedOut:
            return "The peer did not respond in time and the connection timed out. Check that the peer is still "
                + "running and reachable, then try again."
        case .connectionClosed:
            return "The connection closed before the TLS session ended properly: the peer went away or the "
                + "transfer was cancelled."
        case .connectionReset:
            return "The peer reset the connection (it crashed, was stopped, or refused to continue). Try again; "
                + "if it keeps happening, check the peer's error message."
        case .system(let operation, let code):
            return "Network error during the TLS \(operation): \(Errno(code))."
        case .openSSL(let operation, let reasons):
            return "TLS \(operation) failed: \(reasons.joined(separator: "; "))."
        }
    }
}

extension TLSError.Refusal: CustomStringConvertible {
    /// A sentence for the user.
    public var description: String {
        switch self {
        case .certificateRequired:
            return "The peer refused the connection because this side presented no certificate."
        case .certificateExpired:
            return "The peer refused this machine's certificate as expired. Check this machine's clock (`date`); "
                + "restarting share renews the certificate for the same identity."
        case .badCertificate:
            return "The peer refused this machine's certificate (bad certificate). The usual cause is a wrong clock "
                + "on one of the two machines (the certificate is not valid yet there): check `date` on both."
        case .unknownIssuer:
            return "The peer refused this machine's certificate because it does not trust its issuer; the peer may "
                + "require certificates from a team CA."
        case .invalidSignature:
            return "The peer refused this machine's certificate or handshake signature (decrypt error). Check the "
                + "peer's error message; if it persists, report it."
        case .other(let alert):
            return "The peer refused this machine's certificate (TLS alert: \(alert))."
        }
    }
}

extension TLSError.CertificateProblem: CustomStringConvertible {
    /// A sentence for the user.
    public var description: String {
        switch self {
        case .expired(let notAfter):
            let when = notAfter.map { " on \(TLSError.format($0))" } ?? ""
            return "The peer's certificate expired\(when). Check the clocks of both machines (`date`); a share "
                + "node renews its certificate when it restarts."
        case .notYetValid(let notBefore):
            let when = notBefore.map { " until \(TLSError.format($0))" } ?? ""
            return "The peer's certificate is not valid\(when): one of the two clocks is wrong. Check `date` on "
                + "both machines."
        case .invalidSignature:
            return "The peer's certificate has an invalid signature: it is damaged or forged. Do not trust this peer."
        case .unacceptable(let reason):
            return "The peer's certificate was refused: \(reason)."
        }
    }
}

extension TLSError.ProtocolMismatch: CustomStringConvertible {
    /// A sentence for the user.
    public var description: String {
        switch self {
        case .olderTLSVersion:
            return "The peer does not speak TLS 1.3 (it offers only TLS 1.2 or older). share requires TLS 1.3: "
                + "update the peer's software (OpenSSL 1.1.1 or newer)."
        case .httpRequest:
            return "The peer does not speak TLS 1.3: it sent an HTTP request, so it is a web browser, `curl` or a "
                + "proxy, not a share node. Check the address and port."
        case .notTLS:
            return "The peer does not speak TLS 1.3: the bytes it sent are not TLS at all, so it is not a share "
                + "node. Check the address and port."
        }
    }
}

extension TLSError {
    /// `2026-11-30 14:05:00 UTC`.
    static func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss 'UTC'"
        return formatter.string(from: date)
    }
}
