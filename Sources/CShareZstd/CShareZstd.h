// Zstandard (libzstd, RFC 8878): per-chunk compression of DATA frames (docs/PROTOCOL.md §8).
// Only the stable API of zstd.h is used. Its constants that are macros with arithmetic, and the
// error code of a result, get static inline shims Swift can call.
#ifndef CSHARE_ZSTD_H
#define CSHARE_ZSTD_H

#include <zstd.h>
#include <zstd_errors.h>

static const unsigned long long CShareZstd_contentSizeUnknown = ZSTD_CONTENTSIZE_UNKNOWN;
static const unsigned long long CShareZstd_contentSizeError = ZSTD_CONTENTSIZE_ERROR;
static const unsigned int CShareZstd_magicNumber = ZSTD_MAGICNUMBER;

/// Whether `result` is the "destination buffer is too small" error.
static inline int CShareZstd_isDestinationTooSmall(size_t result) {
    return ZSTD_isError(result) && ZSTD_getErrorCode(result) == ZSTD_error_dstSize_tooSmall;
}

/// Whether `result` is the "source size is wrong" error (a frame cut short).
static inline int CShareZstd_isSourceSizeWrong(size_t result) {
    return ZSTD_isError(result) && ZSTD_getErrorCode(result) == ZSTD_error_srcSize_wrong;
}

#endif
