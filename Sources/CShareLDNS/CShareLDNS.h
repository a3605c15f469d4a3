// libldns (NLnet Labs) for Swift: RFC 2136 dynamic updates signed with TSIG, and queries sent to
// one chosen server. Only `ShareDNSUpdate` imports this module, with `internal import`.
#ifndef CSHARE_LDNS_H
#define CSHARE_LDNS_H

#include <ldns/ldns.h>
#include "../CShareLibrary/include/CShareLibrary.h"

/// Every libldns function ShareDNSUpdate calls.
#define CSHARE_LDNS_FUNCTIONS(F) \
    F(ldns_get_errorstr_by_id) \
    F(ldns_pkt2wire) \
    F(ldns_pkt_free) \
    F(ldns_pkt_get_rcode) \
    F(ldns_rdf_deep_free) \
    F(ldns_rdf_new_frm_str) \
    F(ldns_resolver_deep_free) \
    F(ldns_resolver_new) \
    F(ldns_resolver_push_nameserver) \
    F(ldns_resolver_send_pkt) \
    F(ldns_resolver_set_fallback) \
    F(ldns_resolver_set_port) \
    F(ldns_resolver_set_random) \
    F(ldns_resolver_set_recursive) \
    F(ldns_resolver_set_retrans) \
    F(ldns_resolver_set_retry) \
    F(ldns_resolver_set_timeout) \
    F(ldns_resolver_set_tsig_algorithm) \
    F(ldns_resolver_set_tsig_keydata) \
    F(ldns_resolver_set_tsig_keyname) \
    F(ldns_update_pkt_tsig_add) \
    F(ldns_wire2pkt)

/// `CShareLDNS_Functions` and `CShareLDNS_open()`.
CSHARE_LIBRARY(CShareLDNS, CSHARE_LDNS_FUNCTIONS, "libldns.so.3", "libldns3")

#endif
