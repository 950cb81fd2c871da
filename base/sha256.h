/* SHA-256 (FIPS 180-4), written here from the standard.  The cubin cache
 * records each cubin's digest in its .info file, so that a corrupt or
 * mixed-up cubin is never loaded and a user can check an entry with
 * `sha256sum`.  A digest is no signature: whoever can write a file can write
 * its digest too (docs/cache.md, "What the cache trusts"). */
#ifndef TMCML_SHA256_H
#define TMCML_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_BYTES 32
#define SHA256_HEX   (2 * SHA256_BYTES + 1) /* 64 hex digits and the NUL */

typedef struct sha256_ctx {
    uint32_t state[8];
    uint64_t length; /* bytes hashed so far */
    unsigned char block[64];
    size_t used; /* bytes waiting in block */
} sha256_ctx;

void sha256_init(sha256_ctx *c);
void sha256_update(sha256_ctx *c, const void *data, size_t size);
void sha256_final(sha256_ctx *c, unsigned char digest[SHA256_BYTES]);

/* The digest of size bytes as 64 lowercase hex digits into hex. */
void sha256_hex(const void *data, size_t size, char hex[SHA256_HEX]);

#endif
