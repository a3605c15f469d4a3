extension TypeRegistry {
    /// Magic at or above this priority is strong enough to overrule a file name (ELF and XML
    /// sit at 40; generic guesses such as MATLAB's `%` at 10 do not count).
    public static let strongMagicPriority = 40

    /// Decides a received item's type from its name, its first bytes and the sender's declared type.
    ///
    /// The pipeline:
    /// 1. A directory is a package when its extension names a package type (conforming to
    ///    `com.apple.package`, or marked `LSTypeIsPackage` by a registered app); otherwise `public.folder`.
    /// 2. The name gives candidates (``types(forFileName:)``), the content gives magic matches.
    /// 3. With no name candidate, the best magic match wins, else the text heuristic
    ///    (`public.plain-text`), else a dynamic type for the extension, else `public.data`.
    /// 4. A name candidate that equals, conforms to, or is conformed to by a magic match
    ///    (also through shared-mime-info `sub-class-of`) wins; only strong matches count when there
    ///    are any. A generic `public.data` name gives way to the more specific content type.
    /// 5. Otherwise, when the content clearly contradicts the name — it is an executable or a
    ///    script, or the name's type has a signature the content lacks while strong magic or the
    ///    text heuristic says something else, or the name says text and strong magic says binary —
    ///    the content's type wins and ``Resolution/contradiction`` says so. Zip-, gzip- or
    ///    XML-based formats without a signature of their own are never refuted by their container.
    /// 6. The sender's declared type is a hint: it refines the result when it agrees with it
    ///    (is the same, a subtype or a supertype), or fills in when neither name nor content
    ///    could tell and nothing contradicts it; otherwise it is ignored with a warning.
    /// 7. The result is not safe when it is unresolved (dynamic or merely `public.data`) or when
    ///    the content is a program while the name or the declared type claims something else.
    public func resolve(_ request: ResolutionRequest) -> Resolution {
        var state = ResolutionState(fileName: Self.lastPathComponent(request.fileName))
        if request.isDirectory { return resolveDirectory(request, state: state) }
        let name = state.fileName
        let bytes = request.content ?? []

        // Name.
        let nameTypes = types(forFileName: name)
        state.nameTypes = nameTypes
        if nameTypes.isEmpty {
            state.trace.append("name '\(name)' matches no declared type")
        } else {
            state.trace.append("name '\(name)' suggests \(nameTypes.map(\.rawValue).joined(separator: ", "))")
        }

        // Content.
        let isText = request.content != nil && SharedMimeInfo.looksLikeText(bytes)
        // Text cannot be a binary program: "MZ" or an a.out number at the start of prose is a coincidence.
        let matches: [(type: TypeIdentifier, mime: String, priority: Int)] = sharedMimeInfo.sniff(bytes).compactMap {
            match in
            guard let type = type(forSharedMIMEType: match.mimeType) else { return nil }
            if isText && conforms(type, to: .executable) && !isTextual(type) { return nil }
            return (type, match.mimeType, match.priority)
        }
        let strong = matches.first { $0.priority >= Self.strongMagicPriority }
        // Weak magic (MATLAB's "%") may only confirm a name when nothing strong matched.
        let evidence = strong == nil ? matches : matches.filter { $0.priority >= Self.strongMagicPriority }
        let signature = ExecutableSignature(bytes)
        if let first = matches.first {
            state.contentType = first.type
            state.contentMIMEType = first.mime
            state.trace.append(
                "content matches "
                    + matches.prefix(4).map { "\($0.mime) (priority \($0.priority)) → \($0.type)" }.joined(
                        separator: "; "))
        } else if request.content != nil {
            state.trace.append(
                bytes.isEmpty
                    ? "content is empty"
                    : isText
                        ? "content has no magic match and looks like text"
                        : "content has no magic match and looks binary")
        }
        if let signature { state.trace.append("content is \(signature.evidence)") }
        let strongIsProgram = strong.map { isProgramType($0.type) } ?? false
        state.isExecutable = signature != nil || strongIsProgram

        // Decide.
        if nameTypes.isEmpty {
            if let first = matches.first {
                state.choose(first.type, .content, "chosen from content: \(first.mime)")
            } else if let signature {
                state.choose(signature.type, .content, "chosen from content: \(signature.evidence)")
            } else if isText {
                state.choose(.plainText, .content, "chosen from content: text")
            } else if let ext = Self.lastExtension(of: name) {
                state.choose(
                    DynamicType(tagClass: .filenameExtension, tag: ext).identifier, .fileName,
                    "unknown extension '\(ext)': dynamic type")
            } else {
                state.choose(.data, .fallback, "nothing known: public.data")
            }
        } else if let agreeing = nameTypes.first(where: { candidate in
            evidence.contains { areCompatible(candidate, $0.type) }
        }) {
            state.choose(agreeing, .fileName, "name and content agree on \(agreeing)")
            if let strong, isGeneric(agreeing), strong.type != agreeing, conforms(strong.type, to: agreeing) {
                state.choose(strong.type, .content, "the content is more specific: \(strong.type)")
            }
        } else if let contradiction = contentContradiction(
            nameTypes[0], strong: strong, signature: signature, isText: isText)
        {
            state.contradiction = contradiction
            state.warnings.append("\(name): \(contradiction)")
            state.choose(contradiction.contentType, .content, "contradiction: \(contradiction)")
        } else {
            state.choose(nameTypes[0], .fileName, "chosen from the name")
            if let strong {
                state.trace.append(
                    "content looks like \(strong.mime), which \(nameTypes[0]) has no signature to refute; the name is kept"
                )
            } else if request.content != nil, !bytes.isEmpty, hasMagic(nameTypes[0]) {
                state.trace.append("content does not carry the signature of \(nameTypes[0])")
            }
        }

        applyDeclaredType(
            request.declaredType, state: &state, hasContent: request.content != nil && !bytes.isEmpty, isText: isText)
        finishSafety(&state, signatureEvidence: signature?.evidence ?? strong.map { "\($0.mime) content" })
        return state.resolution
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
                    "directory with the extension '\(ext)', which a registered app marks LSTypeIsPackage")
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
        let resolved =
            !state.type.isDynamic
            || applications.contains { app in
                app.manifest.handlerClaims.contains { $0.isPackage }
            }
        return state.finished(isResolved: resolved, isSafe: resolved)
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
        (records[identifier]?.mimeTypes ?? []).compactMap { sharedMimeInfo.canonicalName($0) }
    }

    /// Whether any MIME type of the type has magic in the shared-mime-info database.
    func hasMagic(_ identifier: TypeIdentifier) -> Bool {
        mimeTypes(of: identifier).contains { !(sharedMimeInfo.definitions[$0]?.magic.isEmpty ?? true) }
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

    private func contentContradiction(
        _ nameType: TypeIdentifier, strong: (type: TypeIdentifier, mime: String, priority: Int)?,
        signature: ExecutableSignature?,
        isText: Bool
    ) -> Contradiction? {
        let nameIsProgram = isProgramType(nameType)
        if let strong {
            if isProgramType(strong.type) && !nameIsProgram {
                return Contradiction(
                    nameType: nameType, contentType: strong.type,
                    evidence: signature?.evidence ?? "\(strong.mime) content")
            }
            if hasMagic(nameType) {
                return Contradiction(nameType: nameType, contentType: strong.type, evidence: "\(strong.mime) content")
            }
            if isTextual(nameType) && !isTextual(strong.type) && !isText {
                return Contradiction(nameType: nameType, contentType: strong.type, evidence: "\(strong.mime) content")
            }
        }
        if let signature, !nameIsProgram {
            return Contradiction(nameType: nameType, contentType: signature.type, evidence: signature.evidence)
        }
        if strong == nil, isText, hasMagic(nameType), !isTextual(nameType) {
            return Contradiction(
                nameType: nameType, contentType: .plainText, evidence: "text without the signature of \(nameType)")
        }
        return nil
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
                state.choose(declared, .declaredType, "the declared type \(declared) refines \(current)")
            } else {
                state.trace.append("the declared type \(declared) agrees with \(current)")
            }
        } else if unsettled {
            if textMismatch || programMismatch {
                state.warnings.append(ignored)
            } else {
                state.choose(
                    declared, .declaredType,
                    "neither name nor content settle the type; the sender's \(declared) is used")
            }
        } else if state.nameTypes.isEmpty && !hasMagic(declared) && !textMismatch && !programMismatch
            && !isProgramType(current)
        {
            state.choose(
                declared, .declaredType,
                "the content (\(current)) cannot refute the sender's \(declared), which has no signature; it is used")
        } else {
            state.warnings.append(ignored)
        }
    }

    private func finishSafety(_ state: inout ResolutionState, signatureEvidence: String?) {
        let resolved = !state.type.isDynamic && !isGeneric(state.type) && isDeclared(state.type)
        var disguised = false
        if state.isExecutable {
            let claims = [state.nameTypes.first, state.declaredType].compactMap { $0 }.filter { !isGeneric($0) }
            if let claim = claims.first(where: { !isProgramType($0) }) {
                disguised = true
                state.warnings.append(
                    "\(state.fileName): the content is a program (\(signatureEvidence ?? "executable")) disguised as \(claim); it must not be handed to an importer"
                )
            }
        }
        if !resolved { state.trace.append("the type is unresolved (\(state.type)); not safe to import") }
        state.trace.append("result: \(state.type) (\(state.basis.rawValue))\(disguised ? ", disguised program" : "")")
        state = ResolutionState(copying: state, isResolved: resolved, isSafe: resolved && !disguised)
    }
}
