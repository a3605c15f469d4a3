// libsystemd's sd-daemon API (sd_notify), used only through ShareSystemd (`internal import`).
#ifndef CSHARE_SYSTEMD_H
#define CSHARE_SYSTEMD_H

#include <systemd/sd-daemon.h>
#include "../CShareLibrary/include/CShareLibrary.h"

/// Every libsystemd function ShareSystemd calls.
#define CSHARE_SYSTEMD_FUNCTIONS(F) \
    F(sd_notify)

/// `CShareSystemd_Functions` and `CShareSystemd_open()`.
CSHARE_LIBRARY(CShareSystemd, CSHARE_SYSTEMD_FUNCTIONS, "libsystemd.so.0", "libsystemd0")

#endif
