#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H
// Hide APIs deprecated before 3.0 so nothing new is written against them.
#ifndef OPENSSL_API_COMPAT
#define OPENSSL_API_COMPAT 30000
#endif
#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <openssl/objects.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#endif
