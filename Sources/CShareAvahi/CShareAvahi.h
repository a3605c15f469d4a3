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
#include "../CShareLibrary/include/CShareLibrary.h"

/// Every Avahi function ShareDiscovery calls (from libavahi-client, and libavahi-common through it).
#define CSHARE_AVAHI_FUNCTIONS(F) \
    F(avahi_address_snprint) \
    F(avahi_alternative_service_name) \
    F(avahi_client_errno) \
    F(avahi_client_free) \
    F(avahi_client_get_state) \
    F(avahi_client_new) \
    F(avahi_entry_group_add_service_strlst) \
    F(avahi_entry_group_commit) \
    F(avahi_entry_group_free) \
    F(avahi_entry_group_get_client) \
    F(avahi_entry_group_new) \
    F(avahi_entry_group_reset) \
    F(avahi_free) \
    F(avahi_service_browser_free) \
    F(avahi_service_browser_get_client) \
    F(avahi_service_browser_new) \
    F(avahi_service_resolver_free) \
    F(avahi_service_resolver_new) \
    F(avahi_strerror) \
    F(avahi_string_list_add_arbitrary) \
    F(avahi_string_list_free) \
    F(avahi_string_list_get_next) \
    F(avahi_string_list_get_size) \
    F(avahi_string_list_get_text) \
    F(avahi_threaded_poll_free) \
    F(avahi_threaded_poll_get) \
    F(avahi_threaded_poll_lock) \
    F(avahi_threaded_poll_new) \
    F(avahi_threaded_poll_start) \
    F(avahi_threaded_poll_stop) \
    F(avahi_threaded_poll_unlock)

/// `CShareAvahi_Functions` and `CShareAvahi_open()`.
CSHARE_LIBRARY(CShareAvahi, CSHARE_AVAHI_FUNCTIONS, "libavahi-client.so.3", "libavahi-client3")

#endif
