// libdbus (the reference D-Bus library), used only through ShareNotifications (`internal import`).
// The type codes are macros with casts, which Swift does not import; each gets a `static inline`
// shim.
#ifndef CSHARE_DBUS_H
#define CSHARE_DBUS_H

#include <dbus/dbus.h>
#include "../CShareLibrary/include/CShareLibrary.h"

/// Every libdbus function ShareNotifications calls.
#define CSHARE_DBUS_FUNCTIONS(F) \
    F(dbus_bus_add_match) \
    F(dbus_bus_register) \
    F(dbus_connection_add_filter) \
    F(dbus_connection_close) \
    F(dbus_connection_dispatch) \
    F(dbus_connection_flush) \
    F(dbus_connection_get_is_connected) \
    F(dbus_connection_get_unix_fd) \
    F(dbus_connection_has_messages_to_send) \
    F(dbus_connection_open_private) \
    F(dbus_connection_read_write) \
    F(dbus_connection_remove_filter) \
    F(dbus_connection_send_with_reply) \
    F(dbus_connection_set_exit_on_disconnect) \
    F(dbus_connection_unref) \
    F(dbus_error_free) \
    F(dbus_error_init) \
    F(dbus_error_is_set) \
    F(dbus_message_get_error_name) \
    F(dbus_message_get_sender) \
    F(dbus_message_get_type) \
    F(dbus_message_is_signal) \
    F(dbus_message_iter_append_basic) \
    F(dbus_message_iter_close_container) \
    F(dbus_message_iter_get_arg_type) \
    F(dbus_message_iter_get_basic) \
    F(dbus_message_iter_init) \
    F(dbus_message_iter_init_append) \
    F(dbus_message_iter_next) \
    F(dbus_message_iter_open_container) \
    F(dbus_message_iter_recurse) \
    F(dbus_message_new_method_call) \
    F(dbus_message_ref) \
    F(dbus_message_unref) \
    F(dbus_pending_call_set_notify) \
    F(dbus_pending_call_steal_reply) \
    F(dbus_pending_call_unref) \
    F(dbus_threads_init_default)

/// `CShareDBus_Functions` and `CShareDBus_open()`.
CSHARE_LIBRARY(CShareDBus, CSHARE_DBUS_FUNCTIONS, "libdbus-1.so.3", "libdbus-1-3")

static inline int CShareDBus_TYPE_STRING(void) { return DBUS_TYPE_STRING; }
static inline int CShareDBus_TYPE_UINT32(void) { return DBUS_TYPE_UINT32; }
static inline int CShareDBus_TYPE_INT32(void) { return DBUS_TYPE_INT32; }
static inline int CShareDBus_TYPE_BYTE(void) { return DBUS_TYPE_BYTE; }
static inline int CShareDBus_TYPE_BOOLEAN(void) { return DBUS_TYPE_BOOLEAN; }
static inline int CShareDBus_TYPE_ARRAY(void) { return DBUS_TYPE_ARRAY; }
static inline int CShareDBus_TYPE_VARIANT(void) { return DBUS_TYPE_VARIANT; }
static inline int CShareDBus_TYPE_DICT_ENTRY(void) { return DBUS_TYPE_DICT_ENTRY; }
static inline int CShareDBus_TYPE_STRUCT(void) { return DBUS_TYPE_STRUCT; }
static inline int CShareDBus_TYPE_INVALID(void) { return DBUS_TYPE_INVALID; }

#endif
