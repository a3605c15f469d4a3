// glibc's stub resolver (libresolv) for Swift: the resolver configuration of /etc/resolv.conf and
// res_nsend (retries, several servers, TCP when an answer is truncated). Only `ShareDNS` imports
// this module, with `internal import`.
//
// `res_ninit` and `res_nclose` are macros, and `struct __res_state` keeps its servers in a fixed
// array plus a union for IPv6 ones: each use gets a shim, prefixed `CShareResolv_`. This header
// declares only `<stdint.h>` types and an opaque context; shims.c includes <resolv.h>, whose
// `<netinet/in.h>` would otherwise give this module its own `in_addr` (docs/ARCHITECTURE.md, "C shims").
#ifndef CSHARE_RESOLV_H
#define CSHARE_RESOLV_H

#include <stdint.h>

/// A resolver context (glibc's `struct __res_state`), used only through the functions below.
typedef struct CShareResolvContext CShareResolvContext;

/// A resolver context initialized from /etc/resolv.conf (and LOCALDOMAIN, RES_OPTIONS), or NULL.
CShareResolvContext *_Nullable CShareResolv_new(void);

/// Closes the context's sockets and frees it.
void CShareResolv_free(CShareResolvContext *_Nonnull context);

/// Caps the per-try timeout (seconds) and the number of tries at the given values.
void CShareResolv_limit(CShareResolvContext *_Nonnull context, int seconds, int tries);

/// The per-try timeout in seconds.
int CShareResolv_timeout(const CShareResolvContext *_Nonnull context);

/// The number of tries.
int CShareResolv_tries(const CShareResolvContext *_Nonnull context);

/// The number of name servers.
int CShareResolv_server_count(const CShareResolvContext *_Nonnull context);

/// The longest address text `CShareResolv_server` writes, with its terminating NUL (INET6_ADDRSTRLEN).
#define CSHARE_RESOLV_ADDRESS_TEXT 46

/// Writes name server `index` as text into `buffer` of `size` bytes; returns 0, or -1 when it is
/// not known.
int CShareResolv_server(const CShareResolvContext *_Nonnull context, int index, char *_Nonnull buffer, uint32_t size);

/// Search domain `index` (the `search` line of resolv.conf), or NULL past the last.
const char *_Nullable CShareResolv_search_domain(const CShareResolvContext *_Nonnull context, int index);

/// res_nsend(3): sends the `length` bytes of `query` and writes the answer into `answer`.
/// Returns the answer's length, or -1 with errno set (ETIMEDOUT, ECONNREFUSED...).
int CShareResolv_send(
    CShareResolvContext *_Nonnull context, const uint8_t *_Nonnull query, int length, uint8_t *_Nonnull answer,
    int capacity);

#endif
