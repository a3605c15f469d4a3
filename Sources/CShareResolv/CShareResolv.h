// glibc's stub resolver (libresolv) for Swift: the resolver configuration of /etc/resolv.conf and
// res_nsend (retries, several servers, TCP when an answer is truncated). Only `ShareDNS` imports
// this module, with `internal import`.
//
// `res_ninit` and `res_nclose` are macros, and `struct __res_state` keeps its servers in a fixed
// array plus a union for IPv6 ones: each use gets a small `static inline` shim, prefixed
// `CShareResolv_`.
#ifndef CSHARE_RESOLV_H
#define CSHARE_RESOLV_H

#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <arpa/nameser.h>
#include <resolv.h>

/// A resolver context initialized from /etc/resolv.conf (and LOCALDOMAIN, RES_OPTIONS), or NULL.
static inline res_state CShareResolv_new(void) {
    res_state state = calloc(1, sizeof(struct __res_state));
    if (state == NULL) return NULL;
    if (res_ninit(state) != 0) {
        res_nclose(state);
        free(state);
        return NULL;
    }
    return state;
}

/// Closes the context's sockets and frees it.
static inline void CShareResolv_free(res_state state) {
    res_nclose(state);
    free(state);
}

/// Caps the per-try timeout (seconds) and the number of tries at the given values.
static inline void CShareResolv_limit(res_state state, int seconds, int tries) {
    if (state->retrans > seconds) state->retrans = seconds;
    if (state->retry > tries) state->retry = tries;
}

/// The per-try timeout in seconds and the number of tries.
static inline int CShareResolv_timeout(res_state state) { return state->retrans; }
static inline int CShareResolv_tries(res_state state) { return state->retry; }

/// The number of name servers.
static inline int CShareResolv_server_count(res_state state) { return state->nscount; }

/// Writes name server `index` as text into `buffer`; returns 0, or -1 when it is not known.
static inline int CShareResolv_server(res_state state, int index, char *buffer, socklen_t size) {
    if (index < 0 || index >= state->nscount || index >= MAXNS) return -1;
    if (state->nsaddr_list[index].sin_family == AF_INET) {
        return inet_ntop(AF_INET, &state->nsaddr_list[index].sin_addr, buffer, size) ? 0 : -1;
    }
    struct sockaddr_in6 *six = state->_u._ext.nsaddrs[index];
    if (six != NULL && six->sin6_family == AF_INET6) {
        return inet_ntop(AF_INET6, &six->sin6_addr, buffer, size) ? 0 : -1;
    }
    return -1;
}

/// Search domain `index` (the `search` line of resolv.conf), or NULL past the last.
static inline const char *CShareResolv_search_domain(res_state state, int index) {
    if (index < 0 || index >= MAXDNSRCH) return NULL;
    return state->dnsrch[index];
}

#endif
