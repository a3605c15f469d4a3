internal import CShareICU

/// Owns one ICU `USpoofChecker` (UTS #39) configured to report names that mix scripts beyond what
/// one writing system uses, and to compute confusable skeletons; frees it in deinit.
///
/// ICU allows concurrent checks from several threads on a checker that is no longer modified;
/// this one is configured in `init` and never changed afterwards, hence `@unchecked Sendable`.
final class SpoofChecker: @unchecked Sendable {
    private let checker: OpaquePointer?

    /// The checker every lookup shares (created on first use).
    static let shared = SpoofChecker()

    private init() {
        var status = CShareICU_zeroError
        let checker = CShareICU_uspoof_open(icu, &status)
        if CShareICU_success(status) != 0, let checker {
            CShareICU_uspoof_setChecks(icu, checker, CShareICU_checkRestrictionLevel, &status)
            CShareICU_uspoof_setRestrictionLevel(icu, checker, CShareICU_highlyRestrictive)
            self.checker = CShareICU_success(status) != 0 ? checker : nil
            if self.checker == nil { CShareICU_uspoof_close(icu, checker) }
        } else {
            self.checker = nil
        }
    }

    deinit {
        if let checker { CShareICU_uspoof_close(icu, checker) }
    }

    /// Whether `text` mixes scripts more than a highly restrictive profile allows (Latin with
    /// Cyrillic, say). The corresponding C function is `uspoof_checkUTF8`.
    func mixesScripts(_ text: String) -> Bool {
        guard let checker, !text.isEmpty else { return false }
        var status = CShareICU_zeroError
        let result = text.withCString { CShareICU_uspoof_checkUTF8(icu, checker, $0, -1, &status) }
        return CShareICU_success(status) != 0 && result & CShareICU_checkRestrictionLevel != 0
    }

    /// The UTS #39 skeleton of `text`: two strings that look alike have the same skeleton. Falls back
    /// to `text` itself when ICU cannot compute one. The corresponding C function is
    /// `uspoof_getSkeletonUTF8`.
    func skeleton(_ text: String) -> String {
        guard let checker, !text.isEmpty else { return text }
        var capacity = max(64, text.utf8.count * 4)
        for _ in 0..<2 {
            var status = CShareICU_zeroError
            var buffer = [CChar](repeating: 0, count: capacity)
            let length = text.withCString {
                CShareICU_uspoof_getSkeletonUTF8(icu, checker, $0, -1, &buffer, Int32(capacity), &status)
            }
            if status == CShareICU_bufferOverflow {
                capacity = Int(length) + 1
                continue
            }
            guard CShareICU_success(status) != 0, length >= 0, Int(length) < capacity else { return text }
            return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return text
    }
}
