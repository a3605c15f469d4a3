internal import CShareOpenSSL

/// OpenSSL's functions (libssl, and libcrypto through it), opened the first time share needs TLS,
/// a key, a certificate or a hash (see Sources/CShareLibrary/include/CShareLibrary.h): commands that need
/// none, like `share types resolve`, never load OpenSSL.
let openssl = CShareOpenSSL_open()
