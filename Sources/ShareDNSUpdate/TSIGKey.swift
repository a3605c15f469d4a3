import Foundation
public import ShareDNS

#if canImport(Glibc)
import Glibc
#endif

/// A TSIG key (RFC 8945) as `tsig-keygen` writes it for BIND and `nsupdate -k` reads it:
///
/// ```
/// key "desk.office.example" {
///     algorithm hmac-sha256;
///     secret "kqJ0J3m…=";
/// };
/// ```
///
/// Comments (`#`, `//`, `/* */`) are allowed. A file with several keys is refused: which one to
/// use would be a guess.
public struct TSIGKey: Sendable, Hashable {
    /// The algorithms libldns signs with, by the name BIND's files use.
    public static let algorithms = ["hmac-md5", "hmac-sha1", "hmac-sha224", "hmac-sha256", "hmac-sha384", "hmac-sha512"]

    /// The key's name, which the server looks it up by.
    public var name: DNSName
    /// The algorithm, e.g. `hmac-sha256`.
    public var algorithm: String
    /// The shared secret, base64 as in the file.
    public var secret: String

    public init(name: DNSName, algorithm: String, secret: String) {
        self.name = name
        self.algorithm = algorithm
        self.secret = secret
    }

    /// The algorithm's domain-name form that goes into the signature (`hmac-sha256.`).
    var algorithmName: String {
        algorithm == "hmac-md5" ? "hmac-md5.sig-alg.reg.int." : algorithm + "."
    }

    /// Reads a key file, refusing one that others could read.
    /// - Throws: ``TSIGKeyError`` when the file is missing, unreadable, not owned by this user,
    ///   accessible to its group or others, or not one key in `tsig-keygen` format.
    public static func load(path: String) throws(TSIGKeyError) -> TSIGKey {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw .unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        guard status.st_mode & S_IFMT == S_IFREG else { throw .unreadable(path: path, reason: "it is not a regular file") }
        guard status.st_uid == geteuid() else { throw .notOwned(path: path) }
        guard status.st_mode & 0o077 == 0 else { throw .tooOpen(path: path, mode: status.st_mode & 0o777) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        do {
            return try parse(String(decoding: data, as: UTF8.self))
        } catch {
            throw .invalid(path: path, problem: error.problem)
        }
    }

    /// Parses the text of a key file.
    public static func parse(_ text: String) throws(TSIGKeyParseError) -> TSIGKey {
        let tokens = try tokenize(text)
        var index = 0
        var keys: [TSIGKey] = []
        func next() -> String? {
            guard index < tokens.count else { return nil }
            defer { index += 1 }
            return tokens[index]
        }
        while let token = next() {
            guard token == "key" else { throw TSIGKeyParseError(problem: "expected 'key', found '\(token)'") }
            guard let nameText = next(), nameText != "{" else { throw TSIGKeyParseError(problem: "the key has no name") }
            guard next() == "{" else { throw TSIGKeyParseError(problem: "expected '{' after the key's name") }
            var algorithm: String?
            var secret: String?
            while let field = next(), field != "}" {
                guard let value = next(), next() == ";" else {
                    throw TSIGKeyParseError(problem: "expected '\(field) VALUE;' inside the key")
                }
                switch field.lowercased() {
                case "algorithm": algorithm = value.lowercased()
                case "secret": secret = value
                default: throw TSIGKeyParseError(problem: "unknown field '\(field)' in the key")
                }
            }
            if index < tokens.count, tokens[index] == ";" { index += 1 }
            guard let algorithm else { throw TSIGKeyParseError(problem: "the key has no 'algorithm'") }
            guard algorithms.contains(algorithm) else {
                throw TSIGKeyParseError(problem: "the algorithm '\(algorithm)' is not one of " + algorithms.joined(separator: ", "))
            }
            guard let secret, let bytes = Data(base64Encoded: secret), !bytes.isEmpty else {
                throw TSIGKeyParseError(problem: "the key has no 'secret' in base64")
            }
            let name: DNSName
            do {
                name = try DNSName(nameText)
            } catch {
                throw TSIGKeyParseError(problem: "the key's name '\(nameText)' is not a domain name: \(error)")
            }
            keys.append(TSIGKey(name: name, algorithm: algorithm, secret: secret))
        }
        guard keys.count == 1 else {
            throw TSIGKeyParseError(problem: keys.isEmpty ? "it holds no key" : "it holds \(keys.count) keys; give a file with one")
        }
        return keys[0]
    }

    /// Words, quoted strings and the punctuation `{ } ;`, without comments.
    private static func tokenize(_ text: String) throws(TSIGKeyParseError) -> [String] {
        var tokens: [String] = []
        var characters = Array(text)[...]
        var word = ""
        func flush() {
            if !word.isEmpty { tokens.append(word) }
            word = ""
        }
        while let character = characters.first {
            characters = characters.dropFirst()
            switch character {
            case "#":
                flush()
                characters = characters.drop { $0 != "\n" }
            case "/" where characters.first == "/":
                flush()
                characters = characters.drop { $0 != "\n" }
            case "/" where characters.first == "*":
                flush()
                characters = characters.dropFirst()
                while !characters.isEmpty && !(characters.first == "*" && characters.dropFirst().first == "/") {
                    characters = characters.dropFirst()
                }
                guard !characters.isEmpty else { throw TSIGKeyParseError(problem: "a '/*' comment is not closed") }
                characters = characters.dropFirst(2)
            case "\"":
                flush()
                guard let end = characters.firstIndex(of: "\"") else { throw TSIGKeyParseError(problem: "a quote is not closed") }
                tokens.append(String(characters[..<end]))
                characters = characters[characters.index(after: end)...]
            case "{", "}", ";":
                flush()
                tokens.append(String(character))
            case _ where character.isWhitespace:
                flush()
            default:
                word.append(character)
            }
        }
        flush()
        return tokens
    }
}

/// A key file's text that is not one key in `tsig-keygen` format.
public struct TSIGKeyParseError: Error, Sendable, Hashable {
    public var problem: String

    public init(problem: String) { self.problem = problem }
}

/// Why a key file cannot be used.
public enum TSIGKeyError: Error, Sendable, Hashable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case notOwned(path: String)
    case tooOpen(path: String, mode: UInt32)
    case invalid(path: String, problem: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            "cannot read the DNS key file '\(path)': \(reason)"
        case .notOwned(let path):
            "the DNS key file '\(path)' belongs to another user; a key must be this user's own "
                + "(copy it and 'chmod 600' the copy)"
        case .tooOpen(let path, let mode):
            "the DNS key file '\(path)' can be read by others (mode \(String(mode, radix: 8))); anyone who reads it can "
                + "change your entries in DNS. Run 'chmod 600 \(path)'"
        case .invalid(let path, let problem):
            "'\(path)' is not a TSIG key file as 'tsig-keygen' writes it: \(problem)"
        }
    }
}
