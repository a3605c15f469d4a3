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
    var isExecutable = false
    var isResolved = false
    var isSafe = false
    var warnings: [String] = []
    var trace: [String] = []

    init(fileName: String) {
        self.fileName = fileName
    }

    init(copying other: ResolutionState, isResolved: Bool, isSafe: Bool) {
        self = other
        self.isResolved = isResolved
        self.isSafe = isSafe
    }

    mutating func choose(_ type: TypeIdentifier, _ basis: Resolution.Basis, _ note: String) {
        self.type = type
        self.basis = basis
        trace.append(note)
    }

    func finished(isResolved: Bool, isSafe: Bool) -> Resolution {
        ResolutionState(copying: self, isResolved: isResolved, isSafe: isSafe).resolution
    }

    var resolution: Resolution {
        Resolution(
            fileName: fileName, type: type, basis: basis, nameTypes: nameTypes, contentType: contentType,
            contentMIMEType: contentMIMEType, declaredType: declaredType, contradiction: contradiction,
            isExecutable: isExecutable,
            isResolved: isResolved, isSafe: isSafe, warnings: warnings, trace: trace)
    }
}
