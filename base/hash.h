/* Hashes of bytes: the one place they are written.  Not cryptographic: they
 * name cache entries, detect stale profiles and fingerprint tallies, where an
 * accidental collision is what matters, never an adversary. */
#ifndef TMCML_HASH_H
#define TMCML_HASH_H

#include <stddef.h>
#include <stdint.h>

#define HASH_FNV1A_START UINT64_C(0xcbf29ce484222325) /* FNV-1a 64 offset basis */

/* FNV-1a 64 of size bytes, continuing from h (HASH_FNV1A_START to begin). */
uint64_t hash_fnv1a(uint64_t h, const void *data, size_t size);

/* A second 64-bit hash, independent of FNV-1a (multiply-xorshift with
 * splitmix64's finaliser): the two together name an entry with 128 bits. */
uint64_t hash_mix(const void *data, size_t size);

/* CRC-32 as zip and PNG use it, continuing from crc (0 to begin):
 * hash_crc32(0, "123456789", 9) is 0xcbf43926. */
uint32_t hash_crc32(uint32_t crc, const void *data, size_t size);

#endif
