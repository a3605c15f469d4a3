// The bodies of include/CShareResolv.h, and the only place <resolv.h> and its network headers are
// included.
#include "CShareResolv.h"

#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <arpa/nameser.h>
#include <resolv.h>

_Static_assert(CSHARE_RESOLV_ADDRESS_TEXT == INET6_ADDRSTRLEN, "the longest address text");

/// The context is glibc's own state; the opaque name only keeps <resolv.h> out of the header.
static inline res_state state(const CShareResolvContext *context) { return (res_state)context; }

CShareResolvContext *CShareResolv_new(void) {
    res_state created = calloc(1, sizeof(struct __res_state));
    if (created == NULL) return NULL;
    if (res_ninit(created) != 0) {
        res_nclose(created);
        free(created);
        return NULL;
    }
    return (CShareResolvContext *)created;
}

void CShareResolv_free(CShareResolvContext *context) {
    res_nclose(state(context));
    free(state(context));
}

void CShareResolv_limit(CShareResolvContext *context, int seconds, int tries) {
    if (state(context)->retrans > seconds) state(context)->retrans = seconds;
    if (state(context)->retry > tries) state(context)->retry = tries;
}

int CShareResolv_timeout(const CShareResolvContext *context) { return state(context)->retrans; }

int CShareResolv_tries(const CShareResolvContext *context) { return state(context)->retry; }

int CShareResolv_server_count(const CShareResolvContext *context) { return state(context)->nscount; }

int CShareResolv_server(const CShareResolvContext *context, int index, char *buffer, uint32_t size) {
    res_state resolver = state(context);
    if (index < 0 || index >= resolver->nscount || index >= MAXNS) return -1;
    if (resolver->nsaddr_list[index].sin_family == AF_INET) {
        return inet_ntop(AF_INET, &resolver->nsaddr_list[index].sin_addr, buffer, (socklen_t)size) ? 0 : -1;
    }
    struct sockaddr_in6 *six = resolver->_u._ext.nsaddrs[index];
    if (six != NULL && six->sin6_family == AF_INET6) {
        return inet_ntop(AF_INET6, &six->sin6_addr, buffer, (socklen_t)size) ? 0 : -1;
    }
    return -1;
}

const char *CShareResolv_search_domain(const CShareResolvContext *context, int index) {
    if (index < 0 || index >= MAXDNSRCH) return NULL;
    return state(context)->dnsrch[index];
}

int CShareResolv_send(CShareResolvContext *context, const uint8_t *query, int length, uint8_t *answer, int capacity) {
    return res_nsend(state(context), query, length, answer, capacity);
}
