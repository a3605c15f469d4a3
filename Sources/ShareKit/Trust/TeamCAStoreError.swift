import Foundation
public import ShareTLS

/// Why a team CA cannot be added, found, removed or loaded.
public enum TeamCAStoreError: Error, Sendable, CustomStringConvertible {
    /// The certificate cannot be a team CA (not a CA, not a root, a key in the file, …).
    case invalid(TrustAnchorError)
    /// The CA certificate has expired: it would vouch for no one.
    case expired(CAInfo)
    /// The CA certificate is not valid yet.
    case notYetValid(CAInfo)
    /// A file in `trusted-cas/` is not a usable CA certificate.
    case brokenFile(path: String, problem: TrustAnchorError)
    /// No trusted CA matches the ID.
    case noMatch(String, known: [CAInfo])
    /// Several trusted CAs match the ID.
    case ambiguous(String, matches: [CAInfo])
    /// The folder or a file cannot be read or written.
    case configuration(ConfigurationError)

    /// A sentence for the user saying what happened and what to do.
    public var description: String {
        switch self {
        case .invalid(let error):
            return error.description
        case .expired(let info):
            return "The team CA \"\(info.displayName)\" expired on \(Self.format(info.notAfter)); it would vouch for "
                + "no one. Ask whoever runs it for a new CA certificate."
        case .notYetValid(let info):
            return "The team CA \"\(info.displayName)\" is not valid until \(Self.format(info.notBefore)). Check this "
                + "machine's clock (`date`)."
        case .brokenFile(let path, let problem):
            return "The trusted team CA file \(path) is not usable: \(problem) Remove it (`rm '\(path)'`) and add the "
                + "CA again with `share trust ca add`."
        case .noMatch(let id, let known):
            if known.isEmpty { return "No team CA matches '\(id)': no team CA is trusted on this machine." }
            return "No team CA matches '\(id)'. Trusted team CAs: "
                + known.map { "\($0.fingerprint.prefix(16)) \"\($0.displayName)\"" }.joined(separator: ", ")
                + ". Give a beginning of the fingerprint, or the CA's name."
        case .ambiguous(let id, let matches):
            return "'\(id)' matches several team CAs: "
                + matches.map { "\($0.fingerprint.prefix(16)) \"\($0.displayName)\"" }.joined(separator: ", ")
                + ". Give more of the fingerprint."
        case .configuration(let error):
            return error.description
        }
    }

    /// `2026-11-30`.
    static func format(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day())
    }
}
