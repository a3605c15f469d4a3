/// Reads an Info.plist-style dictionary into an ``ApplicationManifest``, collecting warnings.
struct ManifestParser {
    private(set) var warnings: [ManifestWarning] = []
    /// The application's identifier given by the user (`--bundle-id`): it replaces
    /// `CFBundleIdentifier` and fills in `$(PRODUCT_BUNDLE_IDENTIFIER)` everywhere.
    private let bundleIdentifierOverride: String?

    /// A parser; `warnings` are those found before the dictionary was read (preprocessor lines).
    init(bundleIdentifier: String? = nil, warnings: [ManifestWarning] = []) {
        self.bundleIdentifierOverride = bundleIdentifier
        self.warnings = warnings
    }

    private static let typeDeclarationKeys: Set<String> = [
        "UTTypeIdentifier", "UTTypeConformsTo", "UTTypeTagSpecification", "UTTypeDescription",
        "UTTypeIconFile", "UTTypeIconFiles", "UTTypeIcons", "UTTypeIconName", "UTTypeReferenceURL",
        "UTTypeVersion", "UTTypeIsDeclaredInSystem", "UTTypeSupportsCoordination",
    ]
    private static let documentTypeKeys: Set<String> = [
        "CFBundleTypeName", "CFBundleTypeRole", "LSHandlerRank", "LSItemContentTypes", "CFBundleTypeExtensions",
        "CFBundleTypeMIMETypes", "LSTypeIsPackage", "CFBundleTypeIconFile", "CFBundleTypeIconFiles",
        "CFBundleTypeIconName", "CFBundleTypeIconSystemGenerated", "CFBundleTypeOSTypes", "NSDocumentClass",
        "NSExportableTypes", "NSExportableAs", "LSIsAppleDefaultForType", "NSUbiquitousDocumentUserActivityType",
        "LSDefaultShareModeCollaboration", "NSIsRelatedItemType",
    ]
    private static let importerKeys: Set<String> = ["Kind", "Folder", "Arguments", "Timeout"]
    private static let knownTagClasses: Set<String> = [
        "com.apple.ostype", "com.apple.nspboard-type", "public.url-scheme",
    ]
    /// The most type declarations and document types read from one manifest; the rest are ignored.
    static let maximumEntries = 512
    /// Claimed types that mean "any file".
    static let wildcardTypes: Set<TypeIdentifier> = [.item, .data, .content]

    mutating func parse(_ declaredRoot: [String: Any]) -> ApplicationManifest {
        var bundleIdentifier = optionalString(declaredRoot, "CFBundleIdentifier", at: "")
        var root = declaredRoot
        if let override = bundleIdentifierOverride {
            let settings = [BuildSettingReference.bundleIdentifierSetting: override]
            root = PlistValue.dictionary(Self.expand(declaredRoot, settings: settings)) ?? declaredRoot
            if let declared = bundleIdentifier, BuildSettingReference.references(in: declared).isEmpty,
                declared.lowercased() != override.lowercased()
            {
                warn("CFBundleIdentifier", "'\(declared)' is replaced by the identifier given, '\(override)'")
            }
            bundleIdentifier = override
        } else if let declared = bundleIdentifier,
            let reference = BuildSettingReference.references(in: declared).first
        {
            warn(
                "CFBundleIdentifier",
                Self.buildSettingPhrase(declared, reference) + "; give the application's identifier with --bundle-id")
        }
        let bundleName = usableName(root, "CFBundleName") ?? usableName(root, "CFBundleDisplayName")

        var declared: [(DeclaredType, location: String, positions: Positions)] = []
        for kind in [DeclarationKind.exported, .imported] {
            let key = kind == .exported ? "UTExportedTypeDeclarations" : "UTImportedTypeDeclarations"
            for (index, entry) in dictionaries(root, key).enumerated() {
                let location = "\(key)[\(index)]"
                guard let entry else { continue }
                if let (type, positions) = declaredType(entry, kind: kind, at: location) {
                    declared.append((type, location, positions))
                }
            }
        }

        var documents: [DocumentType] = []
        var claims: [HandlerClaim] = []
        var packageTypes: Set<TypeIdentifier> = []
        for (index, entry) in dictionaries(root, "CFBundleDocumentTypes").enumerated() {
            let location = "CFBundleDocumentTypes[\(index)]"
            guard let entry else { continue }
            let (document, claim) = documentType(entry, index: index, at: location)
            documents.append(document)
            if let claim {
                claims.append(claim)
                if claim.isPackage { packageTypes.formUnion(claim.contentTypes) }
            }
        }

        let importer = importerDeclaration(root)

        for index in declared.indices {
            let identifier = TypeIdentifier(declared[index].0.identifier)
            if packageTypes.contains(identifier) { declared[index].0.isPackage = true }
        }
        let cleaned = cleanDeclarations(declared)
        return ApplicationManifest(
            bundleIdentifier: bundleIdentifier, bundleName: bundleName, declaredTypes: declared.map(\.0),
            documentTypes: documents, importer: importer, warnings: warnings, typeDeclarations: cleaned,
            handlerClaims: claims)
    }

    // MARK: - Type declarations

    private mutating func declaredType(_ entry: [String: Any], kind: DeclarationKind, at location: String) -> (
        DeclaredType, Positions
    )? {
        reportUnknownKeys(entry, known: Self.typeDeclarationKeys, at: location)
        guard let rawIdentifier = value(entry, "UTTypeIdentifier", at: location) else {
            warn(location, "has no UTTypeIdentifier; the declaration is ignored")
            return nil
        }
        guard let identifierText = PlistValue.string(rawIdentifier) else {
            warn(
                "\(location).UTTypeIdentifier",
                "expected a string, found \(PlistValue.kindName(rawIdentifier)); the declaration is ignored")
            return nil
        }
        let identifier = trimmed(identifierText, at: "\(location).UTTypeIdentifier")
        let conformsList = indexedList(entry, "UTTypeConformsTo", at: location)
        let conformsTo = conformsList.map(\.value)
        var extensions: [(index: Int, value: String)] = []
        var mimeTypes: [(index: Int, value: String)] = []
        if let raw = value(entry, "UTTypeTagSpecification", at: location) {
            let specLocation = "\(location).UTTypeTagSpecification"
            if let spec = PlistValue.dictionary(raw) {
                for tagClass in spec.keys.sorted() {
                    let tagLocation = "\(specLocation).\(tagClass)"
                    let normalized = tagClass.trimmingTypeWhitespace().lowercased()
                    switch normalized {
                    case TagClass.filenameExtension.rawValue:
                        if normalized != tagClass {
                            warn(tagLocation, "tag class should be spelled 'public.filename-extension'; read anyway")
                        }
                        extensions += indexedList(spec[tagClass] as Any, at: tagLocation)
                    case TagClass.mimeType.rawValue:
                        if normalized != tagClass {
                            warn(tagLocation, "tag class should be spelled 'public.mime-type'; read anyway")
                        }
                        mimeTypes += indexedList(spec[tagClass] as Any, at: tagLocation)
                    case let other where Self.knownTagClasses.contains(other):
                        continue
                    default:
                        warn(tagLocation, "unknown tag class; ignored")
                    }
                }
            } else {
                warn(specLocation, "expected a dictionary of tag classes, found \(PlistValue.kindName(raw)); ignored")
            }
        }
        let description = optionalString(entry, "UTTypeDescription", at: location)
        let isPackage = conformsTo.contains { TypeIdentifier($0) == .package }
        return (
            DeclaredType(
                identifier: identifier, declaration: kind, conformsTo: conformsTo, extensions: extensions.map(\.value),
                mimeTypes: mimeTypes.map(\.value), description: description, isPackage: isPackage),
            Positions(
                conformsTo: conformsList.map(\.index), extensions: extensions.map(\.index),
                mimeTypes: mimeTypes.map(\.index))
        )
    }

    /// Where each as-declared list element sat in the manifest, for warning locations.
    private struct Positions {
        var conformsTo: [Int]
        var extensions: [Int]
        var mimeTypes: [Int]
    }

    /// Turns as-declared types into usable declarations, warning about every value dropped.
    private mutating func cleanDeclarations(_ declared: [(DeclaredType, location: String, positions: Positions)])
        -> [TypeDeclaration]
    {
        var result: [TypeDeclaration] = []
        var locations: [TypeIdentifier: String] = [:]
        var resultIndex: [TypeIdentifier: Int] = [:]
        for (type, location, positions) in declared {
            let identifier = TypeIdentifier(type.identifier)
            if holdsBuildSetting(type.identifier, at: "\(location).UTTypeIdentifier", "the declaration is ignored") {
                continue
            }
            guard identifier.isWellFormed else {
                warn(
                    "\(location).UTTypeIdentifier",
                    "'\(type.identifier)' is not a valid type identifier (no spaces, '/', ':' or '*', no empty label); the declaration is ignored"
                )
                continue
            }
            if identifier.isDynamic {
                warn(
                    "\(location).UTTypeIdentifier",
                    "dynamic identifiers (dyn.…) cannot be declared; the declaration is ignored")
                continue
            }
            var kind = type.declaration
            if kind == .exported && identifier.isReservedForSystem {
                warn(
                    "\(location).UTTypeIdentifier",
                    "only the system may declare '\(identifier)'; the declaration is treated as imported")
                kind = .imported
            }
            var parents: [TypeIdentifier] = []
            for (index, text) in type.conformsTo.enumerated() {
                let parentLocation = "\(location).UTTypeConformsTo[\(positions.conformsTo[index])]"
                let parent = TypeIdentifier(text)
                if text.isEmpty {
                    warn(parentLocation, "empty identifier; ignored")
                } else if holdsBuildSetting(text, at: parentLocation, "ignored") {
                    continue
                } else if !parent.isWellFormed {
                    warn(parentLocation, "'\(text)' is not a valid type identifier; ignored")
                } else if parent == identifier {
                    warn(parentLocation, "the type lists itself as its own parent; ignored")
                } else if parents.contains(parent) {
                    warn(parentLocation, "'\(text)' is listed twice; the duplicate is ignored")
                } else {
                    parents.append(parent)
                }
            }
            if parents.isEmpty {
                warn(
                    "\(location).UTTypeConformsTo",
                    "the type conforms to nothing; it is treated as conforming to public.data")
                parents = [.data]
            }
            let extensions = cleanExtensions(
                type.extensions, at: "\(location).UTTypeTagSpecification.public.filename-extension",
                indices: positions.extensions)
            let mimeTypes = cleanMIMETypes(
                type.mimeTypes, at: "\(location).UTTypeTagSpecification.public.mime-type", indices: positions.mimeTypes)
            let declaration = TypeDeclaration(
                identifier: identifier, conformsTo: parents, filenameExtensions: extensions, mimeTypes: mimeTypes,
                description: type.description, kind: kind)
            if let first = locations[identifier], let position = resultIndex[identifier] {
                if result[position].kind == .imported && kind == .exported {
                    warn(
                        location, "'\(identifier)' is also declared at \(first); the exported declaration here is used")
                    result[position] = declaration
                    locations[identifier] = location
                } else {
                    warn(location, "'\(identifier)' is already declared at \(first); this declaration is ignored")
                }
                continue
            }
            locations[identifier] = location
            resultIndex[identifier] = result.count
            result.append(declaration)
        }
        breakCycles(&result, locations: locations)
        return result
    }

    /// Removes the parent link that closes each conformance cycle among this manifest's types.
    private mutating func breakCycles(_ declarations: inout [TypeDeclaration], locations: [TypeIdentifier: String]) {
        var index: [TypeIdentifier: Int] = [:]
        for (position, declaration) in declarations.enumerated() { index[declaration.identifier] = position }
        var state: [TypeIdentifier: Int] = [:]  // 1 = on the stack, 2 = done
        func visit(_ identifier: TypeIdentifier, path: [TypeIdentifier], parser: inout ManifestParser) {
            guard let position = index[identifier] else { return }
            state[identifier] = 1
            var kept: [TypeIdentifier] = []
            for parent in declarations[position].conformsTo {
                if state[parent] == 1 {
                    let cycle = (path + [identifier, parent]).drop { $0 != parent }.map(\.rawValue).joined(
                        separator: " → ")
                    parser.warn(
                        "\(locations[identifier] ?? "?").UTTypeConformsTo",
                        "conformance cycle \(cycle); the link from '\(identifier)' to '\(parent)' is ignored")
                    continue
                }
                kept.append(parent)
                if state[parent] == nil { visit(parent, path: path + [identifier], parser: &parser) }
            }
            if kept.isEmpty { kept = [.data] }
            declarations[position].conformsTo = kept
            state[identifier] = 2
        }
        for declaration in declarations where state[declaration.identifier] == nil {
            visit(declaration.identifier, path: [], parser: &self)
        }
    }

    // MARK: - Document types

    private mutating func documentType(_ entry: [String: Any], index: Int, at location: String) -> (
        DocumentType, HandlerClaim?
    ) {
        reportUnknownKeys(entry, known: Self.documentTypeKeys, at: location)
        let name = optionalString(entry, "CFBundleTypeName", at: location)
        let roleText = optionalString(entry, "CFBundleTypeRole", at: location)
        let rankText = optionalString(entry, "LSHandlerRank", at: location)
        let contentList = indexedList(entry, "LSItemContentTypes", at: location)
        let extensionList = indexedList(entry, "CFBundleTypeExtensions", at: location)
        let mimeList = indexedList(entry, "CFBundleTypeMIMETypes", at: location)
        var isPackage: Bool?
        if let raw = value(entry, "LSTypeIsPackage", at: location) {
            isPackage = boolean(raw, at: "\(location).LSTypeIsPackage")
        }
        let icons =
            [optionalString(entry, "CFBundleTypeIconFile", at: location)].compactMap { $0 }
            + indexedList(entry, "CFBundleTypeIconFiles", at: location).map(\.value)
            + [optionalString(entry, "CFBundleTypeIconName", at: location)].compactMap { $0 }
        let document = DocumentType(
            name: name, role: roleText, rank: rankText, contentTypes: contentList.map(\.value),
            extensions: extensionList.map(\.value), mimeTypes: mimeList.map(\.value),
            osTypes: indexedList(entry, "CFBundleTypeOSTypes", at: location).map(\.value), isPackage: isPackage,
            documentClass: optionalString(entry, "NSDocumentClass", at: location),
            exportableTypes: indexedList(entry, "NSExportableTypes", at: location).map(\.value), icons: icons)

        var role = HandlerRole.viewer
        if let roleText {
            if let parsed = HandlerRole(declared: roleText) {
                role = parsed
                if parsed.rawValue != roleText {
                    warn(
                        "\(location).CFBundleTypeRole",
                        "'\(roleText)' should be spelled '\(parsed.rawValue)'; read as \(parsed.rawValue)")
                }
            } else {
                warn(
                    "\(location).CFBundleTypeRole",
                    "unknown role '\(roleText)' (Editor, Viewer, Shell, None); read as Viewer")
            }
        }
        var rank = HandlerRank.default
        if let rankText {
            if let parsed = HandlerRank(declared: rankText) {
                rank = parsed
                if parsed.rawValue != rankText {
                    warn(
                        "\(location).LSHandlerRank",
                        "'\(rankText)' should be spelled '\(parsed.rawValue)'; read as \(parsed.rawValue)")
                }
            } else {
                warn(
                    "\(location).LSHandlerRank",
                    "unknown rank '\(rankText)' (Owner, Default, Alternate, None); read as Default")
            }
        }

        var claimedTypes: [TypeIdentifier] = []
        var wildcards: [TypeIdentifier] = []
        for (position, text) in contentList {
            let itemLocation = "\(location).LSItemContentTypes[\(position)]"
            let identifier = TypeIdentifier(text)
            if text.isEmpty {
                warn(itemLocation, "empty identifier; ignored")
            } else if holdsBuildSetting(text, at: itemLocation, "ignored") {
                continue
            } else if text == "*" || Self.wildcardTypes.contains(identifier) {
                let wildcard = text == "*" ? TypeIdentifier.item : identifier
                warn(itemLocation, "'\(text)' claims every file (a wildcard); it ranks below every specific claim")
                if !wildcards.contains(wildcard) { wildcards.append(wildcard) }
            } else if !identifier.isWellFormed {
                warn(itemLocation, "'\(text)' is not a valid type identifier; ignored")
            } else if claimedTypes.contains(identifier) {
                warn(itemLocation, "'\(text)' is listed twice; the duplicate is ignored")
            } else {
                claimedTypes.append(identifier)
            }
        }
        for (position, text) in extensionList where text == "*" {
            warn(
                "\(location).CFBundleTypeExtensions[\(position)]",
                "'*' claims every file (a wildcard); it ranks below every specific claim")
            if !wildcards.contains(.item) { wildcards.append(.item) }
        }
        let specificExtensions = extensionList.filter { $0.value != "*" }
        let claimedExtensions = cleanExtensions(
            specificExtensions.map(\.value), at: "\(location).CFBundleTypeExtensions",
            indices: specificExtensions.map(\.index))
        for (position, text) in mimeList where text == "*/*" || text == "*" {
            warn(
                "\(location).CFBundleTypeMIMETypes[\(position)]",
                "'\(text)' claims every file (a wildcard); it ranks below every specific claim")
            if !wildcards.contains(.item) { wildcards.append(.item) }
        }
        let specificMIME = mimeList.filter { $0.value != "*/*" && $0.value != "*" }
        let claimedMIMETypes = cleanMIMETypes(
            specificMIME.map(\.value), at: "\(location).CFBundleTypeMIMETypes", indices: specificMIME.map(\.index))

        if claimedTypes.isEmpty && claimedExtensions.isEmpty && claimedMIMETypes.isEmpty && wildcards.isEmpty {
            warn(location, "claims no usable type or extension; the document type is ignored")
            return (document, nil)
        }
        let claim = HandlerClaim(
            name: name, role: role, rank: rank, contentTypes: claimedTypes, filenameExtensions: claimedExtensions,
            mimeTypes: claimedMIMETypes, isWildcard: !wildcards.isEmpty, wildcardTypes: wildcards,
            isPackage: isPackage ?? false, index: index)
        return (document, claim)
    }

    // MARK: - ShareImporter

    private mutating func importerDeclaration(_ root: [String: Any]) -> ImporterDeclaration? {
        let location = "ShareImporter"
        guard let raw = value(root, "ShareImporter", at: "") else { return nil }
        guard let entry = PlistValue.dictionary(raw) else {
            warn(location, "expected a dictionary, found \(PlistValue.kindName(raw)); ignored")
            return nil
        }
        reportUnknownKeys(entry, known: Self.importerKeys, at: location)
        var declaration = ImporterDeclaration()
        declaration.kind = optionalString(entry, "Kind", at: location)
        declaration.folder = optionalString(entry, "Folder", at: location)
        if let arguments = value(entry, "Arguments", at: location) {
            if let text = PlistValue.string(arguments) {
                declaration.argumentsText = text
            } else if let list = PlistValue.array(arguments) {
                var strings: [String] = []
                for (index, element) in list.enumerated() {
                    if let string = PlistValue.string(element) {
                        strings.append(string)
                    } else {
                        warn(
                            "\(location).Arguments[\(index)]",
                            "expected a string, found \(PlistValue.kindName(element)); ignored")
                    }
                }
                declaration.arguments = strings
            } else {
                warn(
                    "\(location).Arguments",
                    "expected an array of strings, found \(PlistValue.kindName(arguments)); ignored")
            }
        }
        if let timeout = value(entry, "Timeout", at: location) {
            if let seconds = PlistValue.number(timeout) {
                declaration.timeoutSeconds = seconds
            } else if let text = PlistValue.string(timeout) {
                if let seconds = Double(text.trimmingTypeWhitespace()) {
                    warn("\(location).Timeout", "a number written as a string; read as \(seconds) seconds")
                    declaration.timeoutSeconds = seconds
                } else {
                    declaration.timeoutText = text
                }
            } else {
                declaration.timeoutText = PlistValue.kindName(timeout)
            }
        }
        return declaration
    }

    // MARK: - Xcode build settings

    /// Whether `text` holds an Xcode build setting reference; if so, warns that it is `consequence`.
    private mutating func holdsBuildSetting(_ text: String, at location: String, _ consequence: String) -> Bool {
        guard let reference = BuildSettingReference.references(in: text).first else { return false }
        let hint =
            reference.name == BuildSettingReference.bundleIdentifierSetting
            ? " (--bundle-id fills in \(reference.text))" : ""
        warn(location, Self.buildSettingPhrase(text, reference) + "; " + consequence + hint)
        return true
    }

    /// `'$(X)' is an Xcode build setting, which Xcode fills in when it builds the app`.
    private static func buildSettingPhrase(_ text: String, _ reference: BuildSettingReference) -> String {
        let what =
            text == reference.text ? "is an Xcode build setting" : "holds the Xcode build setting \(reference.text)"
        return "'\(text)' \(what), which Xcode fills in when it builds the app"
    }

    /// A name key's value, unless it holds an Xcode build setting (`$(PRODUCT_NAME)`), which is never shown.
    private mutating func usableName(_ root: [String: Any], _ key: String) -> String? {
        guard let text = optionalString(root, key, at: "") else { return nil }
        return holdsBuildSetting(text, at: key, "the name is not used") ? nil : text
    }

    /// Every string value (not key) in a property list with the known build settings filled in.
    private static func expand(_ value: Any, settings: [String: String]) -> Any {
        if let text = PlistValue.string(value) { return BuildSettingReference.expand(text, settings: settings) }
        if let list = PlistValue.array(value) { return list.map { expand($0, settings: settings) } }
        if let dictionary = PlistValue.dictionary(value) {
            return dictionary.mapValues { expand($0, settings: settings) }
        }
        return value
    }

    // MARK: - Values

    /// Cleans extensions: trimmed, no leading dot, lower-cased, no duplicates, no wildcards or separators.
    private mutating func cleanExtensions(_ values: [String], at location: String, indices: [Int]? = nil) -> [String] {
        var result: [String] = []
        for (offset, text) in values.enumerated() {
            let itemLocation = "\(location)[\(indices?[offset] ?? offset)]"
            var value = text
            if value.hasPrefix(".") {
                while value.hasPrefix(".") { value.removeFirst() }
                warn(itemLocation, "'\(text)': an extension is written without its leading dot; read as '\(value)'")
            }
            let lower = value.lowercased()
            if value.isEmpty {
                warn(itemLocation, "empty extension; ignored")
            } else if value.contains("*") || value.contains("?") || value.contains("[") {
                warn(itemLocation, "'\(text)' is a pattern, not an extension; ignored")
            } else if value.contains("/") || value.unicodeScalars.contains(where: { $0.properties.isWhitespace })
                || value.hasSuffix(".")
            {
                warn(itemLocation, "'\(text)' cannot be a filename extension; ignored")
            } else if result.contains(lower) {
                warn(itemLocation, "'\(text)' is listed twice (extensions ignore case); the duplicate is ignored")
            } else {
                result.append(lower)
            }
        }
        return result
    }

    /// Cleans MIME types: trimmed, lower-cased, parameters dropped, no duplicates or wildcards.
    private mutating func cleanMIMETypes(_ values: [String], at location: String, indices: [Int]? = nil) -> [String] {
        var result: [String] = []
        for (offset, text) in values.enumerated() {
            let itemLocation = "\(location)[\(indices?[offset] ?? offset)]"
            guard let mime = MIMEType.normalize(text) else {
                warn(itemLocation, "'\(text)' is not a MIME type (type/subtype); ignored")
                continue
            }
            if mime.contains("*") {
                warn(itemLocation, "'\(text)' is a wildcard, which cannot tag a type; ignored")
            } else if result.contains(mime) {
                warn(itemLocation, "'\(text)' is listed twice (MIME types ignore case); the duplicate is ignored")
            } else {
                result.append(mime)
            }
        }
        return result
    }

    private mutating func boolean(_ raw: Any, at location: String) -> Bool? {
        if PlistValue.isBoolean(raw), let value = raw as? Bool { return value }
        if let number = PlistValue.number(raw), number == 0 || number == 1 {
            warn(location, "a boolean written as the number \(Int(number)); read as \(number == 1)")
            return number == 1
        }
        if let text = PlistValue.string(raw) {
            switch text.trimmingTypeWhitespace().lowercased() {
            case "yes", "true", "1":
                warn(location, "a boolean written as the string '\(text)'; read as true")
                return true
            case "no", "false", "0":
                warn(location, "a boolean written as the string '\(text)'; read as false")
                return false
            default: break
            }
        }
        warn(location, "expected a boolean, found \(PlistValue.kindName(raw)); ignored")
        return nil
    }

    /// Looks a key up exactly, then ignoring case and surrounding whitespace (with a warning).
    private mutating func value(_ dictionary: [String: Any], _ key: String, at location: String) -> Any? {
        if let value = dictionary[key] { return value }
        let lower = key.lowercased()
        let matches = dictionary.keys.filter { $0.trimmingTypeWhitespace().lowercased() == lower }.sorted()
        guard let match = matches.first, let value = dictionary[match] else { return nil }
        warn(join(location, match), "key should be spelled '\(key)'; read anyway")
        return value
    }

    /// A string value, trimmed (with a warning when trimming changed it); `nil` if absent or not a string.
    private mutating func optionalString(_ dictionary: [String: Any], _ key: String, at location: String) -> String? {
        guard let raw = value(dictionary, key, at: location) else { return nil }
        let itemLocation = join(location, key)
        guard let text = PlistValue.string(raw) else {
            warn(itemLocation, "expected a string, found \(PlistValue.kindName(raw)); ignored")
            return nil
        }
        return trimmed(text, at: itemLocation)
    }

    /// The strings of a list with their positions in the manifest (non-strings are skipped).
    private mutating func indexedList(_ raw: Any, at location: String) -> [(index: Int, value: String)] {
        if let text = PlistValue.string(raw) {
            warn(location, "expected an array, found a string; read as a one-element list")
            return [(0, trimmed(text, at: location))]
        }
        guard let list = PlistValue.array(raw) else {
            warn(location, "expected an array of strings, found \(PlistValue.kindName(raw)); ignored")
            return []
        }
        var result: [(index: Int, value: String)] = []
        for (index, element) in list.enumerated() {
            let itemLocation = "\(location)[\(index)]"
            if let text = PlistValue.string(element) {
                result.append((index, trimmed(text, at: itemLocation)))
            } else {
                warn(itemLocation, "expected a string, found \(PlistValue.kindName(element)); ignored")
            }
        }
        return result
    }

    private mutating func indexedList(_ dictionary: [String: Any], _ key: String, at location: String) -> [(
        index: Int, value: String
    )] {
        guard let raw = value(dictionary, key, at: location) else { return [] }
        return indexedList(raw, at: join(location, key))
    }

    private mutating func trimmed(_ text: String, at location: String) -> String {
        let result = text.trimmingTypeWhitespace()
        if result != text { warn(location, "surrounding whitespace in '\(text)' is ignored") }
        return result
    }

    /// The dictionaries of an array-of-dictionaries key; `nil` entries stand for unusable elements.
    private mutating func dictionaries(_ root: [String: Any], _ key: String) -> [[String: Any]?] {
        guard let raw = value(root, key, at: "") else { return [] }
        if let single = PlistValue.dictionary(raw) {
            warn(key, "expected an array of dictionaries, found one dictionary; read as a one-element list")
            return [single]
        }
        guard var list = PlistValue.array(raw) else {
            warn(key, "expected an array of dictionaries, found \(PlistValue.kindName(raw)); ignored")
            return []
        }
        if list.count > Self.maximumEntries {
            warn(key, "has \(list.count) entries; only the first \(Self.maximumEntries) are read")
            list = Array(list.prefix(Self.maximumEntries))
        }
        return list.enumerated().map { index, element in
            guard let dictionary = PlistValue.dictionary(element) else {
                warn("\(key)[\(index)]", "expected a dictionary, found \(PlistValue.kindName(element)); ignored")
                return nil
            }
            return dictionary
        }
    }

    private mutating func reportUnknownKeys(_ dictionary: [String: Any], known: Set<String>, at location: String) {
        let lowerKnown = Set(known.map { $0.lowercased() })
        for key in dictionary.keys.sorted() where !known.contains(key) {
            // Near-misses in case or whitespace are reported when the key is read.
            if lowerKnown.contains(key.trimmingTypeWhitespace().lowercased()) { continue }
            warn(join(location, key), "unknown key; ignored")
        }
    }

    private func join(_ location: String, _ key: String) -> String {
        location.isEmpty ? key : "\(location).\(key)"
    }

    mutating func warn(_ location: String, _ message: String) {
        warnings.append(ManifestWarning(location: location, message: message))
    }
}
