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

/* CRC-32 (ISO-HDLC: zip, PNG, zlib), reflected polynomial 0xEDB88320, four
 * bits at a time from a table of 16: no table to build at run time, and fast
 * enough for output files (a few hundred MB/s). */
uint32_t hash_crc32(uint32_t crc, const void *data, size_t size)
{
    static const uint32_t nibble[16] = {0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac,
                                        0x76dc4190, 0x6b6b51f4, 0x4db26158, 0x5005713c,
                                        0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
                                        0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c};
    const unsigned char *p = data;
    crc = ~crc;
    for (size_t i = 0; i < size; i++) {
        crc ^= p[i];
        crc = (crc >> 4) ^ nibble[crc & 15];
        crc = (crc >> 4) ^ nibble[crc & 15];
    }
    return ~crc;
}
