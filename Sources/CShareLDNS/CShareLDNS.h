// libldns (NLnet Labs) for Swift: RFC 2136 dynamic updates signed with TSIG, and queries sent to
// one chosen server. Only `ShareDNSUpdate` imports this module, with `internal import`.
#ifndef CSHARE_LDNS_H
#define CSHARE_LDNS_H

#include <ldns/ldns.h>

#endif
