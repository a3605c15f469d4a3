extension TypeRegistry {
    /// The registered applications that can take a type, ranked (see ``HandlerRanking``).
    /// - Parameters:
    ///   - type: the document's type.
    ///   - fileName: the document's name, so claims of its extension match too.
    public func handlers(for type: TypeIdentifier, fileName: String? = nil) -> HandlerRanking {
        let type = store.record(type)?.identifier ?? type
        var candidates: [HandlerCandidate] = []
        var excluded: [HandlerCandidate] = []
        let name = fileName.map { Self.lastPathComponent($0).lowercased() }
        let exportingApps = Set(
            (store.declarers(type) ?? []).compactMap { declarer -> String? in
                if case .application(let id, .exported) = declarer.origin { id.lowercased() } else { nil }
            })
        for application in applications {
            var best: HandlerCandidate?
            var bestExcluded: HandlerCandidate?
            for claim in application.manifest.handlerClaims {
                guard let match = self.match(claim, type: type, fileName: name) else { continue }
                let candidate = HandlerCandidate(
                    applicationID: application.applicationID, applicationName: application.name, claim: claim,
                    match: match,
                    importer: application.importer,
                    declaresType: store.exporter(type)?.lowercased() == application.applicationID.lowercased(),
                    exportsType: exportingApps.contains(application.applicationID.lowercased()),
                    registeredAt: application.registeredAt)
                if claim.canHandle {
                    if best.map({ HandlerRanking.precedes(candidate, $0) }) ?? true { best = candidate }
                } else if bestExcluded == nil {
                    bestExcluded = candidate
                }
            }
            if let best {
                candidates.append(best)
            } else if let bestExcluded {
                excluded.append(bestExcluded)
            }
        }
        candidates.sort(by: HandlerRanking.precedes)
        var conflicts: [String] = []
        if let first = candidates.first {
            for other in candidates.dropFirst() {
                guard let reason = HandlerRanking.tieBreak(first, other, type: type) else { break }
                let kind = first.rank == .owner && !first.match.isWildcard ? "conflicting owners" : "tie"
                conflicts.append(
                    "\(kind): \(first.applicationID) and \(other.applicationID) both claim \(type) at rank \(first.rank.rawValue) (\(first.match)); \(first.applicationID) wins: \(reason)"
                )
            }
        }
        return HandlerRanking(type: type, candidates: candidates, excluded: excluded, conflicts: conflicts)
    }

    /// Where a resolved document goes: the best handler's importer, or the receive folder when
    /// the resolution is unsafe or unresolved, or when no application takes the type; the inbox
    /// when an application takes the type but the content lacks the type's signature
    /// (``Resolution/mismatch``): its importer would be handed something else.
    public func importChoice(for resolution: Resolution) -> ImportChoice {
        guard resolution.isSafe else {
            return .receiveFolder(
                resolution.isResolved ? .unsafe(warnings: resolution.warnings) : .unresolved(resolution.type))
        }
        if let best = handlers(for: resolution.type, fileName: resolution.fileName).best {
            if let mismatch = resolution.mismatch { return .keepInInbox(mismatch, passedOver: best) }
            return .application(best)
        }
        return .receiveFolder(.noHandler(resolution.type))
    }

    /// The best match of one claim for a type, or `nil`.
    private func match(_ claim: HandlerClaim, type: TypeIdentifier, fileName: String?) -> HandlerMatch? {
        var best: HandlerMatch?
        func consider(_ match: HandlerMatch) {
            if best.map({ match.distance < $0.distance }) ?? true { best = match }
        }
        for claimed in claim.contentTypes {
            if let distance = conformanceDistance(from: type, to: claimed) {
                consider(.contentType(claimed, distance: distance))
            }
        }
        let record = record(for: type)
        for ext in claim.filenameExtensions {
            let byName = fileName.map { $0.hasSuffix("." + ext) && $0.count > ext.count + 1 } ?? false
            if byName || (record?.filenameExtensions.contains(ext) ?? false) { consider(.filenameExtension(ext)) }
        }
        if !claim.mimeTypes.isEmpty {
            for (distance, candidate) in ([type] + supertypes(of: type)).enumerated() {
                let mimes = (self.record(for: candidate)?.mimeTypes ?? []).map {
                    sharedMimeInfo.canonicalName($0) ?? $0
                }
                if let mime = claim.mimeTypes.first(where: { mimes.contains(sharedMimeInfo.canonicalName($0) ?? $0) }) {
                    consider(.mimeType(mime, distance: conformanceDistance(from: type, to: candidate) ?? distance))
                    break
                }
            }
        }
        if best == nil {
            for wildcard in claim.wildcardTypes where conforms(type, to: wildcard) {
                best = .wildcard(wildcard)
                break
            }
        }
        return best
    }

    // MARK: - Explanation

    /// Finds a type from what a user types: an identifier, a MIME type (`image/png`) or an
    /// extension (`.png`). Unknown extensions and MIME types give dynamic types.
    public func type(matching query: String) -> TypeIdentifier? {
        let text = query.trimmingTypeWhitespace()
        guard !text.isEmpty else { return nil }
        if text.hasPrefix(".") { return preferredType(forFilenameExtension: text) }
        if text.contains("/") { return MIMEType.normalize(text) == nil ? nil : preferredType(forMIMEType: text) }
        let identifier = TypeIdentifier(text)
        return record(for: identifier) == nil ? nil : identifier
    }

    /// Everything `share types show` prints: conformance chain, tags, declaring apps, handlers by
    /// rank and any conflict. `nil` for an identifier that is neither declared nor dynamic.
    public func explain(_ identifier: TypeIdentifier) -> TypeExplanation? {
        guard let record = record(for: identifier) else { return nil }
        let identifier = record.identifier
        let ranking = handlers(for: identifier)
        // Owner conflicts are in the ranking's own words.
        let conflicts =
            warnings.filter { $0.types.contains(identifier) && $0.kind != .conflictingOwners }.map(\.message)
            + ranking.conflicts
        return TypeExplanation(
            record: record, supertypes: supertypes(of: identifier),
            conformanceChains: conformanceChains(of: identifier),
            declarers: store.declarers(identifier) ?? [TypeDeclarer(origin: .dynamic, isInUse: true)],
            handlers: ranking,
            conflicts: conflicts)
    }
}
