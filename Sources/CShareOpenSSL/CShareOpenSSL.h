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

// Adds `x509` (a new reference) to the chain the context presents after its certificate.
static inline long CShareOpenSSL_SSL_CTX_add1_chain_cert(SSL_CTX *ctx, X509 *x509) {
    return SSL_CTX_add1_chain_cert(ctx, x509);
}

// RFC 2253 distinguished names with UTF-8 kept as UTF-8 (control characters are still escaped).
static inline unsigned long CShareOpenSSL_XN_FLAG_RFC2253_UTF8(void) {
    return XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB;
}

// The typed `sk_X509_*` helpers are macros over OPENSSL_sk_*.
static inline int CShareOpenSSL_sk_X509_num(const STACK_OF(X509) *stack) {
    return sk_X509_num(stack);
}

static inline X509 *CShareOpenSSL_sk_X509_value(const STACK_OF(X509) *stack, int index) {
    return sk_X509_value(stack, index);
}

#endif
