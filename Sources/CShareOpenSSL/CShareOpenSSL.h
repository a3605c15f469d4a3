// OpenSSL for Swift. Only `ShareTLS` imports this module, with `internal import`, and calls OpenSSL
// through the function table `CShareOpenSSL_open` fills on first use (CShareLibrary.h).
//
// Some OpenSSL "functions" are macros too complex for the Clang importer; each one gets a
// `static inline` shim here, prefixed `CShareOpenSSL_` (the original name cannot be reused: the
// macro would expand over it). A shim whose macro calls an OpenSSL function takes that function
// from the table as its first argument and does what the macro's definition does. The
// `SSL_CTX_set_*` macros over `SSL_CTX_ctrl` need none: TLSContext calls `SSL_CTX_ctrl` itself.
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
#include "../CShareLibrary/include/CShareLibrary.h"

/// Every OpenSSL function ShareTLS and the shims below call (from libssl, and libcrypto through it).
#define CSHARE_OPENSSL_FUNCTIONS(F) \
    F(ASN1_STRING_to_UTF8) \
    F(ASN1_TIME_set) \
    F(ASN1_TIME_to_tm) \
    F(BIO_clear_flags) \
    F(BIO_ctrl) \
    F(BIO_free) \
    F(BIO_get_data) \
    F(BIO_get_new_index) \
    F(BIO_meth_new) \
    F(BIO_meth_set_ctrl) \
    F(BIO_meth_set_read_ex) \
    F(BIO_meth_set_write_ex) \
    F(BIO_new) \
    F(BIO_new_mem_buf) \
    F(BIO_read_ex) \
    F(BIO_s_mem) \
    F(BIO_s_secmem) \
    F(BIO_set_data) \
    F(BIO_set_flags) \
    F(BIO_set_init) \
    F(BIO_write_ex) \
    F(BN_bin2bn) \
    F(BN_free) \
    F(BN_to_ASN1_INTEGER) \
    F(CRYPTO_free) \
    F(ERR_clear_error) \
    F(ERR_get_error_all) \
    F(ERR_pop_to_mark) \
    F(ERR_reason_error_string) \
    F(ERR_set_mark) \
    F(EVP_DigestFinal_ex) \
    F(EVP_DigestInit_ex) \
    F(EVP_DigestUpdate) \
    F(EVP_MD_CTX_copy_ex) \
    F(EVP_MD_CTX_free) \
    F(EVP_MD_CTX_new) \
    F(EVP_MD_fetch) \
    F(EVP_PKEY_CTX_free) \
    F(EVP_PKEY_CTX_new_from_name) \
    F(EVP_PKEY_free) \
    F(EVP_PKEY_generate) \
    F(EVP_PKEY_get0_type_name) \
    F(EVP_PKEY_is_a) \
    F(EVP_PKEY_keygen_init) \
    F(OPENSSL_sk_num) \
    F(OPENSSL_sk_value) \
    F(PEM_read_bio_PrivateKey) \
    F(PEM_read_bio_X509) \
    F(PEM_write_bio_PKCS8PrivateKey) \
    F(PEM_write_bio_X509) \
    F(PEM_write_bio_X509_REQ) \
    F(RAND_bytes) \
    F(SSL_CIPHER_get_name) \
    F(SSL_CTX_check_private_key) \
    F(SSL_CTX_ctrl) \
    F(SSL_CTX_free) \
    F(SSL_CTX_new) \
    F(SSL_CTX_set1_cert_store) \
    F(SSL_CTX_set_num_tickets) \
    F(SSL_CTX_set_options) \
    F(SSL_CTX_set_verify) \
    F(SSL_CTX_use_PrivateKey) \
    F(SSL_CTX_use_certificate) \
    F(SSL_alert_desc_string_long) \
    F(SSL_do_handshake) \
    F(SSL_free) \
    F(SSL_get0_peer_certificate) \
    F(SSL_get_current_cipher) \
    F(SSL_get_error) \
    F(SSL_get_ex_data) \
    F(SSL_get_ex_data_X509_STORE_CTX_idx) \
    F(SSL_get_peer_cert_chain) \
    F(SSL_get_verify_result) \
    F(SSL_get_version) \
    F(SSL_has_pending) \
    F(SSL_new) \
    F(SSL_read_ex) \
    F(SSL_set_accept_state) \
    F(SSL_set_bio) \
    F(SSL_set_connect_state) \
    F(SSL_set_ex_data) \
    F(SSL_set_fd) \
    F(SSL_shutdown) \
    F(SSL_write_ex) \
    F(TLS_client_method) \
    F(TLS_server_method) \
    F(X509V3_EXT_conf_nid) \
    F(X509V3_set_ctx) \
    F(X509_EXTENSION_free) \
    F(X509_NAME_ENTRY_get_data) \
    F(X509_NAME_add_entry_by_txt) \
    F(X509_NAME_cmp) \
    F(X509_NAME_get_entry) \
    F(X509_NAME_get_index_by_NID) \
    F(X509_NAME_print_ex) \
    F(X509_REQ_free) \
    F(X509_REQ_get_subject_name) \
    F(X509_REQ_new) \
    F(X509_REQ_set_pubkey) \
    F(X509_REQ_set_version) \
    F(X509_REQ_sign) \
    F(X509_STORE_CTX_free) \
    F(X509_STORE_CTX_get0_chain) \
    F(X509_STORE_CTX_get_current_cert) \
    F(X509_STORE_CTX_get_error) \
    F(X509_STORE_CTX_get_error_depth) \
    F(X509_STORE_CTX_get_ex_data) \
    F(X509_STORE_CTX_init) \
    F(X509_STORE_CTX_new) \
    F(X509_STORE_CTX_set_default) \
    F(X509_STORE_CTX_set_error) \
    F(X509_STORE_add_cert) \
    F(X509_STORE_free) \
    F(X509_STORE_new) \
    F(X509_add_ext) \
    F(X509_check_ca) \
    F(X509_check_issued) \
    F(X509_check_private_key) \
    F(X509_check_purpose) \
    F(X509_cmp) \
    F(X509_cmp_current_time) \
    F(X509_free) \
    F(X509_get0_notAfter) \
    F(X509_get0_notBefore) \
    F(X509_get0_pubkey) \
    F(X509_get_extension_flags) \
    F(X509_get_issuer_name) \
    F(X509_get_serialNumber) \
    F(X509_get_subject_name) \
    F(X509_getm_notAfter) \
    F(X509_getm_notBefore) \
    F(X509_new) \
    F(X509_set_issuer_name) \
    F(X509_set_pubkey) \
    F(X509_set_version) \
    F(X509_sign) \
    F(X509_up_ref) \
    F(X509_verify) \
    F(X509_verify_cert) \
    F(X509_verify_cert_error_string) \
    F(i2d_PUBKEY) \
    F(i2d_X509)

/// `CShareOpenSSL_Functions` and `CShareOpenSSL_open()`: OpenSSL 3 is `libssl.so.3`.
CSHARE_LIBRARY(
    CShareOpenSSL, CSHARE_OPENSSL_FUNCTIONS, "libssl.so." CSHARE_LIBRARY_STRING(OPENSSL_SHLIB_VERSION), "libssl3")

static inline long CShareOpenSSL_BIO_get_mem_data(__typeof__(&BIO_ctrl) _Nonnull ctrl, BIO *bio, char **pp) {
    return ctrl(bio, BIO_CTRL_INFO, 0, (char *)pp);
}

// `SSL_OP_*` are built with `SSL_OP_BIT(n)`, a cast the Clang importer does not take.
static inline uint64_t CShareOpenSSL_SSL_OP_NO_TICKET(void) {
    return SSL_OP_NO_TICKET;
}

static inline uint64_t CShareOpenSSL_SSL_OP_NO_RENEGOTIATION(void) {
    return SSL_OP_NO_RENEGOTIATION;
}

// RFC 2253 distinguished names with UTF-8 kept as UTF-8 (control characters are still escaped).
static inline unsigned long CShareOpenSSL_XN_FLAG_RFC2253_UTF8(void) {
    return XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB;
}

// The typed `sk_X509_*` helpers are macros over OPENSSL_sk_*.
static inline int CShareOpenSSL_sk_X509_num(__typeof__(&OPENSSL_sk_num) _Nonnull num, const STACK_OF(X509) *stack) {
    return num((const OPENSSL_STACK *)stack);
}

static inline X509 *CShareOpenSSL_sk_X509_value(
    __typeof__(&OPENSSL_sk_value) _Nonnull value, const STACK_OF(X509) *stack, int index) {
    return (X509 *)value((const OPENSSL_STACK *)stack, index);
}

#endif
