// OpenSSL for Swift. Only `ShareTLS` imports this module, with `internal import`.
//
// Some OpenSSL "functions" are macros too complex for the Clang importer; each one gets a
// `static inline` shim here, prefixed `CShareOpenSSL_` (the original name cannot be reused: the
// macro would expand over it).
#ifndef CSHARE_OPENSSL_H
#define CSHARE_OPENSSL_H

#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/pem.h>
#include <openssl/bio.h>
#include <openssl/rand.h>

static inline long CShareOpenSSL_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return SSL_CTX_set_min_proto_version(ctx, version);
}

static inline long CShareOpenSSL_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version) {
    return SSL_CTX_set_max_proto_version(ctx, version);
}

static inline long CShareOpenSSL_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}

static inline long CShareOpenSSL_SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_session_cache_mode(ctx, mode);
}

static inline long CShareOpenSSL_BIO_get_mem_data(BIO *bio, char **pp) {
    return BIO_get_mem_data(bio, pp);
}

static inline long CShareOpenSSL_SSL_CTX_set_read_ahead(SSL_CTX *ctx, int yes) {
    return SSL_CTX_set_read_ahead(ctx, yes);
}

// `SSL_OP_*` are built with `SSL_OP_BIT(n)`, a cast the Clang importer does not take.
static inline uint64_t CShareOpenSSL_SSL_OP_NO_TICKET(void) {
    return SSL_OP_NO_TICKET;
}

static inline uint64_t CShareOpenSSL_SSL_OP_NO_RENEGOTIATION(void) {
    return SSL_OP_NO_RENEGOTIATION;
}

#endif
