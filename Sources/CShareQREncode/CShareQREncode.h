// libqrencode (libqrencode4), read only through ShareQRCode (`internal import`), which opens it on
// first use (CShareLibrary.h): `share send --link` draws its address as a QR code. qrencode.h
// includes no header, so this module declares no libc type.
#ifndef CSHARE_QRENCODE_H
#define CSHARE_QRENCODE_H

#include <qrencode.h>
#include "../CShareLibrary/include/CShareLibrary.h"

/// Every libqrencode function ShareQRCode calls.
#define CSHARE_QRENCODE_FUNCTIONS(F) \
    F(QRcode_encodeData) \
    F(QRcode_free)

/// `CShareQREncode_Functions` and `CShareQREncode_open()`: libqrencode 4 is `libqrencode.so.4`.
CSHARE_LIBRARY(CShareQREncode, CSHARE_QRENCODE_FUNCTIONS, "libqrencode.so.4", "libqrencode4")

#endif
