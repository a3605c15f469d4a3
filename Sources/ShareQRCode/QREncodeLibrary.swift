internal import CShareQREncode

/// libqrencode's functions, opened the first time share draws a QR code.
let qrencode = CShareQREncode_open()
