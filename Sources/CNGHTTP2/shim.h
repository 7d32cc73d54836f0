#ifndef LIVERELAY_CNGHTTP2_SHIM_H
#define LIVERELAY_CNGHTTP2_SHIM_H

// nghttp2 (the HTTP/2 library h2load is built on) and OpenSSL for the push lane. Swift does not import
// the OpenSSL macros the lane needs, so they are wrapped here.

#include <nghttp2/nghttp2.h>
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <sys/eventfd.h>
#include <netinet/tcp.h>

static inline long cnghttp2_set_sni(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}

static inline int cnghttp2_set_min_tls12(SSL_CTX *context) {
    return (int)SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
}

#endif
