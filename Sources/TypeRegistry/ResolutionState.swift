/// Mutable working state of one resolution.
struct ResolutionState {
    let fileName: String
    var type: TypeIdentifier = .data
    var basis: Resolution.Basis = .fallback
    var nameTypes: [TypeIdentifier] = []
    var contentType: TypeIdentifier?
    var contentMIMEType: String?
    var declaredType: TypeIdentifier?
    var contradiction: Contradiction?
    var mismatch: ContentMismatch?
    /// The MIME type the decision settled on, when it names one (a glob's or magic's type).
    var mimeType: String?
    var isExecutable = false
    var isResolved = false
    var isSafe = false
    var warnings: [String] = []
    var trace: [String] = []

    init(fileName: String) {
        self.fileName = fileName
    }

    init(copying other: ResolutionState, isResolved: Bool, isSafe: Bool, mimeType: String) {
        self = other
        self.isResolved = isResolved
        self.isSafe = isSafe
        self.mimeType = mimeType
    }

    mutating func choose(_ type: TypeIdentifier, _ basis: Resolution.Basis, mime: String? = nil, _ note: String) {
        self.type = type
        self.basis = basis
        self.mimeType = mime
        trace.append(note)
    }

    func finished(isResolved: Bool, isSafe: Bool, mimeType: String) -> Resolution {
        ResolutionState(copying: self, isResolved: isResolved, isSafe: isSafe, mimeType: mimeType).resolution
    }

    var resolution: Resolution {
        Resolution(
            fileName: fileName, type: type, mimeType: mimeType ?? "application/octet-stream", basis: basis,
            nameTypes: nameTypes, contentType: contentType,
            contentMIMEType: contentMIMEType, declaredType: declaredType, contradiction: contradiction,
            isExecutable: isExecutable,
            isResolved: isResolved, isSafe: isSafe, warnings: warnings, trace: trace,
            mismatch: mismatch)
    }
}
