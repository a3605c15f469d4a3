// ICU's spoof checker (UTS #39): confusable skeletons and mixed-script detection for peer names.
// ICU renames every function with its version (uspoof_open -> uspoof_open_72) through macros that
// Swift cannot see, so each function share uses gets a static inline shim with a stable name.
#ifndef CSHARE_ICU_H
#define CSHARE_ICU_H

#include <unicode/uspoof.h>

static inline USpoofChecker *CShareICU_uspoof_open(UErrorCode *status) { return uspoof_open(status); }
static inline void CShareICU_uspoof_close(USpoofChecker *checker) { uspoof_close(checker); }
static inline void CShareICU_uspoof_setChecks(USpoofChecker *checker, int32_t checks, UErrorCode *status) {
    uspoof_setChecks(checker, checks, status);
}
static inline void CShareICU_uspoof_setRestrictionLevel(USpoofChecker *checker, URestrictionLevel level) {
    uspoof_setRestrictionLevel(checker, level);
}
static inline int32_t CShareICU_uspoof_checkUTF8(
    const USpoofChecker *checker, const char *id, int32_t length, UErrorCode *status) {
    return uspoof_checkUTF8(checker, id, length, NULL, status);
}
static inline int32_t CShareICU_uspoof_getSkeletonUTF8(
    const USpoofChecker *checker, const char *id, int32_t length, char *dest, int32_t capacity, UErrorCode *status) {
    return uspoof_getSkeletonUTF8(checker, 0, id, length, dest, capacity, status);
}
static inline int CShareICU_success(UErrorCode status) { return U_SUCCESS(status); }

static const int32_t CShareICU_checkRestrictionLevel = USPOOF_RESTRICTION_LEVEL;
static const URestrictionLevel CShareICU_highlyRestrictive = USPOOF_HIGHLY_RESTRICTIVE;
static const UErrorCode CShareICU_zeroError = U_ZERO_ERROR;
static const UErrorCode CShareICU_bufferOverflow = U_BUFFER_OVERFLOW_ERROR;

#endif
