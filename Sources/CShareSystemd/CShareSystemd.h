// libsystemd's sd-daemon API (sd_notify), used only through ShareSystemd (`internal import`).
#ifndef CSHARE_SYSTEMD_H
#define CSHARE_SYSTEMD_H

#include <systemd/sd-daemon.h>

#endif
