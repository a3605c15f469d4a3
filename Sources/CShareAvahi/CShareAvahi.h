// Avahi's native client API for Swift. Only `ShareDiscovery` imports this module, with `internal import`.
#ifndef CSHARE_AVAHI_H
#define CSHARE_AVAHI_H

#include <avahi-client/client.h>
#include <avahi-client/publish.h>
#include <avahi-client/lookup.h>
#include <avahi-common/thread-watch.h>
#include <avahi-common/error.h>
#include <avahi-common/strlst.h>
#include <avahi-common/address.h>
#include <avahi-common/alternative.h>
#include <avahi-common/malloc.h>

#endif
