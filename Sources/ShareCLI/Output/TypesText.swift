import Foundation
import ShareKit
import TypeRegistry

/// How types, applications, importers and inbox entries are shown, as text and as JSON.
enum TypesText {
    // MARK: Importers

    /// `unpack into ~/Bugs`, `command /usr/bin/app import %f (timeout 10 s)`.
    static func importer(_ importer: ShareImporter?, home: String) -> String {
        guard let importer else { return "none (declares types only)" }
        switch importer {
        case .copy(let folder): return "copy into \(DisplayPath.abbreviate(folder, home: home))"
        case .move(let folder): return "move into \(DisplayPath.abbreviate(folder, home: home))"
        case .unpack(let folder): return "unpack into \(DisplayPath.abbreviate(folder, home: home))"
        case .command(let command):
            var text = "command " + ([command.program] + command.arguments).map(quoted).joined(separator: " ")
            text += " (timeout \(DocumentImporter.seconds(command.timeout))"
            if let directory = command.workingDirectory {
                text += ", in \(DisplayPath.abbreviate(directory, home: home))"
            }
            return text + ")"
        }
    }

    static func importerJSON(_ importer: ShareImporter?) -> JSON {
        guard let importer else { return .null }
        switch importer {
        case .copy(let folder), .move(let folder), .unpack(let folder):
            return .object([("kind", .string(importer.kind)), ("folder", .string(folder))])
        case .command(let command):
            let seconds =
                Double(command.timeout.components.seconds) + Double(command.timeout.components.attoseconds) / 1e18
            return .object([
                ("kind", .string("command")),
                ("arguments", .array(([command.program] + command.arguments).map(JSON.string))),
                ("timeout", .double(seconds)),
                ("workingDirectory", command.workingDirectory.map(JSON.string) ?? .null),
            ])
        }
    }

    /// A word with spaces or quotes shown in single quotes.
    static func quoted(_ word: String) -> String {
        word.isEmpty || word.contains(where: { $0 == " " || $0 == "'" || $0 == "\"" }) ? "'\(word)'" : word
    }

    // MARK: Applications

    static func applicationJSON(_ application: ApplicationRegistration) -> JSON {
        .object([
            ("id", .string(application.applicationID)),
            ("name", .string(application.name)),
            ("registeredAt", .string(iso8601(application.registeredAt))),
            ("importer", importerJSON(application.importer)),
            ("declares", .array(application.manifest.typeDeclarations.map(declarationJSON))),
            ("handles", .array(application.manifest.handlerClaims.map(claimJSON))),
        ])
    }

    static func declarationJSON(_ declaration: TypeDeclaration) -> JSON {
        .object([
            ("identifier", .string(declaration.identifier.rawValue)),
            ("declaration", .string(declaration.kind.rawValue)),
            ("conformsTo", .array(declaration.conformsTo.map { .string($0.rawValue) })),
            ("extensions", .array(declaration.filenameExtensions.map(JSON.string))),
            ("mimeTypes", .array(declaration.mimeTypes.map(JSON.string))),
            ("description", declaration.description.map(JSON.string) ?? .null),
        ])
    }

    static func claimJSON(_ claim: HandlerClaim) -> JSON {
        var types = claim.contentTypes.map { JSON.string($0.rawValue) }
        if claim.isWildcard { types += claim.wildcardTypes.map { .string($0.rawValue) } }
        return .object([
            ("name", claim.name.map(JSON.string) ?? .null),
            ("role", .string(claim.role.rawValue)),
            ("rank", .string(claim.rank.rawValue)),
            ("contentTypes", .array(types)),
            ("extensions", .array(claim.filenameExtensions.map(JSON.string))),
            ("mimeTypes", .array(claim.mimeTypes.map(JSON.string))),
        ])
    }

    /// `com.example.bug (exported; .sbz; application/x-bug)`.
    static func declaration(_ declaration: TypeDeclaration) -> String {
        var parts = [declaration.kind.rawValue]
        if !declaration.filenameExtensions.isEmpty {
            parts.append(declaration.filenameExtensions.map { "." + $0 }.joined(separator: " "))
        }
        if !declaration.mimeTypes.isEmpty { parts.append(declaration.mimeTypes.joined(separator: " ")) }
        return "\(declaration.identifier) (\(parts.joined(separator: "; ")))"
    }

    /// `com.example.bug, .sbz (Owner, Editor)`.
    static func claim(_ claim: HandlerClaim) -> String {
        var what = claim.contentTypes.map(\.rawValue) + claim.filenameExtensions.map { "." + $0 } + claim.mimeTypes
        if claim.isWildcard { what += claim.wildcardTypes.map { $0 == .item ? "*" : $0.rawValue } }
        return "\(what.joined(separator: ", ")) (\(claim.rank.rawValue), \(claim.role.rawValue))"
    }

    /// The lines describing one registered application.
    static func applicationLines(_ application: ApplicationRegistration, home: String) -> [String] {
        var lines = ["\(TerminalText.safe(application.applicationID)) \"\(TerminalText.safe(application.name))\""]
        lines.append("  imports:  \(TerminalText.safe(importer(application.importer, home: home)))")
        for declaration in application.manifest.typeDeclarations {
            lines.append("  declares: \(TerminalText.safe(self.declaration(declaration)))")
        }
        for claim in application.manifest.handlerClaims {
            lines.append("  handles:  \(TerminalText.safe(self.claim(claim)))")
        }
        return lines
    }

    // MARK: Inbox

    static func entryJSON(_ entry: InboxEntry, busy: Bool, inbox: Inbox) -> JSON {
        .object([
            ("id", .string(entry.id)),
            ("name", .string(entry.name)),
            ("bundle", .bool(entry.isBundle)),
            ("files", .int(Int64(entry.files))),
            ("bytes", .int(Int64(clamping: entry.bytes))),
            ("path", .string(inbox.documentPath(of: entry))),
            (
                "sender",
                .object([("name", .string(entry.senderName)), ("fingerprint", .string(entry.senderFingerprint))])
            ),
            ("receivedAt", .string(iso8601(entry.receivedAt))),
            ("receiveFolder", entry.receiveFolder.map(JSON.string) ?? .null),
            ("declaredType", entry.declaredType.map(JSON.string) ?? .null),
            ("resolvedType", entry.resolvedType.map(JSON.string) ?? .null),
            ("state", .string(busy ? "importing" : entry.state.rawValue)),
            ("failure", entry.failure.map(JSON.string) ?? .null),
            ("needsPassword", .bool(entry.needsPassword)),
            ("attempts", .int(Int64(entry.attempts))),
        ])
    }

    // MARK: Dates

    static func iso8601(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    /// `2025-01-31 14:05` in local time.
    static func shortDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }
}
