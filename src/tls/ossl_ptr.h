// ossl_ptr — unique_ptr aliases with per-type deleters for every OpenSSL object the tool
// holds, so that no early return can leak a key, a context or a connection.
#pragma once

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <memory>

namespace pqc {

template <typename T, void (*Free)(T*)>
struct OsslDeleter {
  void operator()(T* p) const { Free(p); }
};

template <typename T, void (*Free)(T*)>
using OsslPtr = std::unique_ptr<T, OsslDeleter<T, Free>>;

using SslPtr = OsslPtr<SSL, SSL_free>;
using SslCtxPtr = OsslPtr<SSL_CTX, SSL_CTX_free>;
using SslSessionPtr = OsslPtr<SSL_SESSION, SSL_SESSION_free>;
using PkeyPtr = OsslPtr<EVP_PKEY, EVP_PKEY_free>;
using PkeyCtxPtr = OsslPtr<EVP_PKEY_CTX, EVP_PKEY_CTX_free>;
using MdCtxPtr = OsslPtr<EVP_MD_CTX, EVP_MD_CTX_free>;
using X509Ptr = OsslPtr<X509, X509_free>;
using X509NamePtr = OsslPtr<X509_NAME, X509_NAME_free>;
using X509StorePtr = OsslPtr<X509_STORE, X509_STORE_free>;
using X509StoreCtxPtr = OsslPtr<X509_STORE_CTX, X509_STORE_CTX_free>;
using BioPtr = OsslPtr<BIO, BIO_free_all>;

}  // namespace pqc
