// ICU's spoof checker (UTS #39): confusable skeletons and mixed-script detection for peer names.
// ICU renames every function with its version (uspoof_open -> uspoof_open_72) through macros that
// Swift cannot see, so each function share uses gets a static inline shim with a stable name. The
// shims call ICU through the function table `CShareICU_open` fills on first use (CShareLibrary.h),
// which they take as their first argument.
#ifndef CSHARE_ICU_H
#define CSHARE_ICU_H

#include <unicode/uspoof.h>
#include "../CShareLibrary/include/CShareLibrary.h"

/// Every ICU function the shims call (each name is macro-expanded to its versioned symbol).
#define CSHARE_ICU_FUNCTIONS(F) \
    F(uspoof_open) \
    F(uspoof_close) \
    F(uspoof_setChecks) \
    F(uspoof_setRestrictionLevel) \
    F(uspoof_checkUTF8) \
    F(uspoof_getSkeletonUTF8)

/// `CShareICU_Functions` and `CShareICU_open()`: libicui18n, and libicuuc through it.
CSHARE_LIBRARY(CShareICU, CSHARE_ICU_FUNCTIONS, "libicui18n.so." U_ICU_VERSION_SHORT, "libicu" U_ICU_VERSION_SHORT)

static inline USpoofChecker *CShareICU_uspoof_open(CShareICU_Functions icu, UErrorCode *status) {
    return icu.uspoof_open(status);
}
static inline void CShareICU_uspoof_close(CShareICU_Functions icu, USpoofChecker *checker) {
    icu.uspoof_close(checker);
}
static inline void CShareICU_uspoof_setChecks(
    CShareICU_Functions icu, USpoofChecker *checker, int32_t checks, UErrorCode *status) {
    icu.uspoof_setChecks(checker, checks, status);
}
static inline void CShareICU_uspoof_setRestrictionLevel(
    CShareICU_Functions icu, USpoofChecker *checker, URestrictionLevel level) {
    icu.uspoof_setRestrictionLevel(checker, level);
}
static inline int32_t CShareICU_uspoof_checkUTF8(
    CShareICU_Functions icu, const USpoofChecker *checker, const char *id, int32_t length, UErrorCode *status) {
    return icu.uspoof_checkUTF8(checker, id, length, NULL, status);
}
static inline int32_t CShareICU_uspoof_getSkeletonUTF8(
    CShareICU_Functions icu, const USpoofChecker *checker, const char *id, int32_t length, char *dest, int32_t capacity,
    UErrorCode *status) {
    return icu.uspoof_getSkeletonUTF8(checker, 0, id, length, dest, capacity, status);
}
static inline int CShareICU_success(UErrorCode status) { return U_SUCCESS(status); }

static const int32_t CShareICU_checkRestrictionLevel = USPOOF_RESTRICTION_LEVEL;
static const URestrictionLevel CShareICU_highlyRestrictive = USPOOF_HIGHLY_RESTRICTIVE;
static const UErrorCode CShareICU_zeroError = U_ZERO_ERROR;
static const UErrorCode CShareICU_bufferOverflow = U_BUFFER_OVERFLOW_ERROR;

#endif
