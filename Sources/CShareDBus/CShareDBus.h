// libdbus (the reference D-Bus library), used only through ShareNotifications (`internal import`).
// The type codes are macros with casts, which Swift does not import; each gets a `static inline`
// shim.
#ifndef CSHARE_DBUS_H
#define CSHARE_DBUS_H

#include <dbus/dbus.h>

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
