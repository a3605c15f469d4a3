extension TypeRegistry {
    /// Decides a received item's type from its name, its first bytes and the sender's declared type.
    ///
    /// Files follow the recommended checking order of the shared-mime-info specification (§2.12),
    /// over the globs of shared-mime-info and the extensions of declared types alike:
    /// 1. The name: literal names first, then only the globs of the highest weight, then only the
    ///    longest patterns (`*.tar.gz` before `*.gz`), case-sensitive globs (`*.C`) only in their
    ///    case. When they all name one type, that is the type; the content is not consulted.
    /// 2. Otherwise the content decides: the first magic rule that matches (by priority), else
    ///    `text/plain` for textual or empty data, `application/octet-stream` for other data. With no
    ///    name match that is the type (an unknown extension with binary data gets a dynamic type);
    ///    with conflicting name matches, the first that is that type or a subclass of it wins, else
    ///    the first name match.
    /// 3. The sender's declared type is a hint: it refines the result when it agrees with it
    ///    (is a subtype), or fills in when neither name nor content could tell and nothing
    ///    contradicts it; otherwise it is ignored with a warning.
    ///
    /// A directory is a package when its extension names a package type (conforming to
    /// `com.apple.package`, or marked `LSTypeIsPackage` by a registered app for a declared type);
    /// a directory whose package type share would have to invent (a dynamic type) is never
    /// resolved; any other directory is `public.folder`.
    ///
    /// The safety check is separate from typing: content that is a program (an ELF, PE or Mach-O
    /// header, or `#!`) is ``Resolution/isExecutable``, and when the name or the declared type says
    /// it is something else, it is a disguise (``Resolution/contradiction``): never safe to import.
    /// A result that is dynamic or merely `public.data` is not resolved, so not safe either.
    ///
    /// A type whose files always begin with a signature (``ContentSignature``: JPEG, PNG, GIF, WebP,
    /// ZIP, PDF) given to content without it is a ``Resolution/mismatch``: the file is not what its
    /// name says, and it is never handed to that type's importer.
    public func resolve(_ request: ResolutionRequest) -> Resolution {
        var state = ResolutionState(fileName: Self.lastPathComponent(request.fileName))
        if request.isDirectory { return resolveDirectory(request, state: state) }
        let name = state.fileName
        let matches = nameMatches(name)
        var nameTypes: [TypeIdentifier] = []
        for match in matches where !nameTypes.contains(match.type) { nameTypes.append(match.type) }
        state.nameTypes = nameTypes
        if matches.isEmpty {
            state.trace.append("name '\(name)' matches no glob or declared extension")
        } else {
            state.trace.append(
                "name '\(name)' matches "
                    + matches.map { "\($0.mimeType ?? "the extension of") → \($0.type)" }.joined(separator: ", "))
        }
        let bytes = request.content ?? []
        let signature = request.content.flatMap(ExecutableSignature.init)
        state.isExecutable = signature != nil
        let isText = request.content != nil && SharedMimeInfo.looksLikeText(bytes)

        if request.content?.isEmpty == true {
            state.choose(.plainText, .content, mime: "text/plain", "the file is empty: text/plain, whatever its name")
        } else if matches.count == 1 {
            state.choose(
                matches[0].type, .fileName, mime: matches[0].mimeType,
                "one type matches the name: \(matches[0].type); the content is not consulted")
        } else if request.content == nil {
            if let first = matches.first {
                state.choose(
                    first.type, .fileName, mime: first.mimeType,
                    "the names conflict and the content was not read: the first, \(first.type)")
            } else {
                chooseUnknown(name, state: &state, text: false)
            }
        } else {
            let sniffed = sharedMimeInfo.sniffFirst(bytes)
            let sniffedMIME = sniffed?.mimeType ?? (isText ? "text/plain" : "application/octet-stream")
            if let sniffed {
                state.contentMIMEType = sniffed.mimeType
                state.contentType = type(forSharedMIMEType: sniffed.mimeType)
                state.trace.append(
                    "content matches the magic of \(sniffed.mimeType) (priority \(sniffed.priority))"
                        + (state.contentType.map { " → \($0)" } ?? ""))
            } else {
                state.trace.append(
                    "content matches no magic and is \(isText ? "text: text/plain" : "binary: application/octet-stream")")
            }
            if matches.isEmpty {
                if let sniffed, let type = state.contentType {
                    state.choose(type, .content, mime: sniffed.mimeType, "chosen from content: \(sniffed.mimeType)")
                } else {
                    chooseUnknown(name, state: &state, text: isText)
                }
            } else if let agreeing = matches.first(where: { isA($0, sniffedMIME) }) {
                state.choose(
                    agreeing.type, .fileName, mime: agreeing.mimeType,
                    "the names conflict; \(agreeing.type) is \(sniffedMIME), as the content is")
            } else {
                state.choose(
                    matches[0].type, .fileName, mime: matches[0].mimeType,
                    "the names conflict and none is \(sniffedMIME): the first, \(matches[0].type)")
            }
        }
        if let signature { state.trace.append("content is \(signature.evidence)") }

        applyDeclaredType(
            request.declaredType, state: &state, hasContent: request.content != nil && !bytes.isEmpty, isText: isText)
        if signature == nil, request.content != nil,
            let mismatch = ContentMismatch.check(
                claimedType: state.type, fileName: name, byDeclaredType: state.basis == .declaredType, content: bytes,
                otherwise: isText ? "text" : nil)
        {
            state.mismatch = mismatch
            state.warnings.append("\(name): \(mismatch); it is not handed to an importer")
            state.trace.append("\(state.type) files begin with the \(mismatch.expected.format) signature; this one does not")
        }
        finishSafety(&state, signature: signature)
        return state.resolution
    }

    /// No name match and no magic: text is `public.plain-text`; other data gets a dynamic type for
    /// its extension, or `public.data` without one.
    private func chooseUnknown(_ name: String, state: inout ResolutionState, text: Bool) {
        if text {
            state.choose(.plainText, .content, mime: "text/plain", "chosen from content: text")
        } else if let ext = Self.lastExtension(of: name) {
            state.choose(
                DynamicType(tagClass: .filenameExtension, tag: ext).identifier, .fileName,
                mime: "application/octet-stream", "unknown extension '\(ext)': dynamic type")
        } else {
            state.choose(.data, .fallback, mime: "application/octet-stream", "nothing known: public.data")
        }
    }

    /// The name's matches, best first: each shared-mime-info glob's type with its MIME type, and
    /// each declared extension's type unless a glob of the same type matched too.
    /// A declared extension's match takes the place of the first glob of its type, so a built-in or
    /// exported type keeps its precedence among equally good matches.
    func nameMatches(_ fileName: String) -> [GlobTarget] {
        var result: [GlobTarget] = []
        for target in store.nameMatches(Self.lastPathComponent(fileName)).map(\.payload) {
            if let index = result.firstIndex(where: { $0.type == target.type }) {
                if result[index].mimeType == nil {
                    if target.mimeType != nil { result[index] = target }
                    continue
                }
                if target.mimeType == nil { continue }
            }
            result.append(target)
        }
        return result
    }

    /// Whether a name match is the sniffed MIME type or a subclass of it (by shared-mime-info's
    /// `sub-class-of`, or by conformance for a declared type).
    private func isA(_ match: GlobTarget, _ sniffed: String) -> Bool {
        if let mime = match.mimeType { return sharedMimeInfo.isSubclass(mime, of: sniffed) }
        if mimeTypes(of: match.type).contains(where: { sharedMimeInfo.isSubclass($0, of: sniffed) }) { return true }
        guard let sniffedType = type(forSharedMIMEType: sniffed) else { return false }
        return conforms(match.type, to: sniffedType)
    }

    // MARK: - Directories

    private func resolveDirectory(_ request: ResolutionRequest, state initial: ResolutionState) -> Resolution {
        var state = initial
        let name = state.fileName
        if let ext = Self.lastExtension(of: name) {
            let packages = types(forFilenameExtension: ext).filter { record(for: $0.identifier)?.isPackage == true }
                .map(\.identifier)
            state.nameTypes = packages
            if let first = packages.first {
                state.choose(first, .directory, "directory with the package extension '\(ext)': \(first)")
            } else if applications.contains(where: { app in
                app.manifest.handlerClaims.contains { $0.isPackage && $0.filenameExtensions.contains(ext) }
            }) {
                let dynamic = DynamicType(tagClass: .filenameExtension, tag: ext, conformsTo: .directory).identifier
                state.choose(
                    dynamic, .directory,
                    "directory with the extension '\(ext)', which a registered app marks LSTypeIsPackage without "
                        + "declaring a type for it: a dynamic type, never imported")
            } else {
                state.choose(.folder, .directory, "directory; '\(ext)' is not a package extension: public.folder")
            }
        } else {
            state.choose(.folder, .directory, "directory: public.folder")
        }
        if let declaredText = request.declaredType, let declared = declaredIdentifier(declaredText, state: &state) {
            state.declaredType = declared
            if declared != state.type && !conforms(state.type, to: declared) {
                state.warnings.append(
                    "\(name): the sender declared \(declared), but the item is a directory of type \(state.type); the declared type is ignored"
                )
            }
        }
        let resolved = !state.type.isDynamic
        if !resolved { state.trace.append("the type is dynamic (\(state.type)); not safe to import") }
        return state.finished(isResolved: resolved, isSafe: resolved, mimeType: preferredMIMEType(for: state.type))
    }

    // MARK: - Pieces

    /// Whether two types describe compatible content: one conforms to the other, or one's MIME
    /// type is a shared-mime-info subclass of the other's.
    func areCompatible(_ a: TypeIdentifier, _ b: TypeIdentifier) -> Bool {
        if conforms(a, to: b) || conforms(b, to: a) { return true }
        let aMIME = mimeTypes(of: a)
        let bMIME = mimeTypes(of: b)
        for x in aMIME {
            for y in bMIME where sharedMimeInfo.isSubclass(x, of: y) || sharedMimeInfo.isSubclass(y, of: x) {
                // Everything is a subclass of application/octet-stream; that says nothing.
                if x == "application/octet-stream" || y == "application/octet-stream" { continue }
                return true
            }
        }
        return false
    }

    private func mimeTypes(of identifier: TypeIdentifier) -> [String] {
        (store.record(identifier)?.mimeTypes ?? []).compactMap { sharedMimeInfo.canonicalName($0) }
    }

    /// Whether any MIME type of the type has magic in the shared-mime-info database.
    func hasMagic(_ identifier: TypeIdentifier) -> Bool {
        mimeTypes(of: identifier).contains { sharedMimeInfo.hasMagic($0) }
    }

    /// Whether a type is text by conformance or by MIME type (`text/*` or a subclass of `text/plain`).
    func isTextual(_ identifier: TypeIdentifier) -> Bool {
        conforms(identifier, to: .text)
            || mimeTypes(of: identifier).contains {
                $0.hasPrefix("text/") || sharedMimeInfo.isSubclass($0, of: "text/plain")
            }
    }

    /// Programs: types conforming to `public.executable` or `public.script`.
    func isProgramType(_ identifier: TypeIdentifier) -> Bool {
        conforms(identifier, to: .executable) || conforms(identifier, to: .script)
    }

    /// Roots too general to act on.
    func isGeneric(_ identifier: TypeIdentifier) -> Bool {
        identifier == .data || identifier == .item || identifier == .content
    }

    private func declaredIdentifier(_ text: String, state: inout ResolutionState) -> TypeIdentifier? {
        let trimmed = text.trimmingTypeWhitespace()
        guard !trimmed.isEmpty else { return nil }
        if trimmed.contains("/") {
            guard let first = types(forMIMEType: trimmed).first else {
                state.trace.append("the sender declared the MIME type '\(trimmed)', which is unknown; ignored")
                return nil
            }
            state.trace.append("the sender declared the MIME type '\(trimmed)': \(first.identifier)")
            return first.identifier
        }
        let identifier = TypeIdentifier(trimmed)
        if identifier.isDynamic {
            state.trace.append(
                "the sender declared the dynamic type '\(trimmed)', which is meaningless off its machine; ignored")
            return nil
        }
        guard isDeclared(identifier) else {
            state.trace.append("the sender declared '\(trimmed)', which no registered type declares; ignored")
            return nil
        }
        state.trace.append("the sender declared \(identifier)")
        return identifier
    }

    /// Applies the sender's declared type (see step 6 of ``resolve(_:)``).
    private func applyDeclaredType(_ text: String?, state: inout ResolutionState, hasContent: Bool, isText: Bool) {
        guard let text, let declared = declaredIdentifier(text, state: &state) else { return }
        state.declaredType = declared
        let current = state.type
        let ignored =
            "\(state.fileName): the sender declared \(declared), but the file looks like \(current); the declared type is ignored"
        if declared == current {
            state.trace.append("the declared type agrees")
            return
        }
        let heuristicOnly = state.basis == .content && state.contentType == nil
        let unsettled = current.isDynamic || isGeneric(current) || heuristicOnly
        let textMismatch =
            hasContent && ((!isText && isTextual(declared)) || (isText && hasMagic(declared) && !isTextual(declared)))
        let programMismatch = state.isExecutable && !isProgramType(declared)
        if !unsettled && areCompatible(declared, current) {
            if conforms(declared, to: current) && (!isProgramType(declared) || state.isExecutable) {
                state.choose(
                    declared, .declaredType, mime: preferredMIMEType(for: declared),
                    "the declared type \(declared) refines \(current)")
            } else {
                state.trace.append("the declared type \(declared) agrees with \(current)")
            }
        } else if unsettled {
            if textMismatch || programMismatch {
                state.warnings.append(ignored)
            } else {
                state.choose(
                    declared, .declaredType, mime: preferredMIMEType(for: declared),
                    "neither name nor content settle the type; the sender's \(declared) is used")
            }
        } else if state.nameTypes.isEmpty && !hasMagic(declared) && !textMismatch && !programMismatch
            && !isProgramType(current)
        {
            state.choose(
                declared, .declaredType, mime: preferredMIMEType(for: declared),
                "the content (\(current)) cannot refute the sender's \(declared), which has no signature; it is used")
        } else {
            state.warnings.append(ignored)
        }
    }

    private func finishSafety(_ state: inout ResolutionState, signature: ExecutableSignature?) {
        let resolved = !state.type.isDynamic && !isGeneric(state.type) && isDeclared(state.type)
        var disguised = false
        if let signature {
            let claims = [state.nameTypes.isEmpty ? nil : state.type, state.declaredType].compactMap { $0 }
                .filter { !isGeneric($0) }
            if let claim = claims.first(where: { !isProgramType($0) }) {
                disguised = true
                state.contradiction = Contradiction(
                    nameType: claim, contentType: signature.type, evidence: signature.evidence)
                state.warnings.append(
                    "\(state.fileName): the content is a program (\(signature.evidence)) disguised as \(claim); it must not be handed to an importer"
                )
            }
        }
        if !resolved { state.trace.append("the type is unresolved (\(state.type)); not safe to import") }
        state.trace.append("result: \(state.type) (\(state.basis.rawValue))\(disguised ? ", disguised program" : "")")
        state = ResolutionState(
            copying: state, isResolved: resolved, isSafe: resolved && !disguised,
            mimeType: state.mimeType ?? preferredMIMEType(for: state.type))
    }
}
