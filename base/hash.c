#include "hash.h"

#define FNV1A_PRIME UINT64_C(0x100000001b3)

uint64_t hash_fnv1a(uint64_t h, const void *data, size_t size)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < size; i++)
        h = (h ^ p[i]) * FNV1A_PRIME;
    return h;
}

uint64_t hash_mix(const void *data, size_t n)
{
    const unsigned char *p = data;
    uint64_t h = 0x9e3779b97f4a7c15ull ^ (n * 0xd6e8feb86659fd93ull);
    for (size_t i = 0; i < n; i++) {
        h = (h ^ p[i]) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
    return h ^ (h >> 31);
}
