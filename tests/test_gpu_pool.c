/* The multi-GPU dispatcher's arithmetic and refusals (runtime/engine/
 * gpu_pool.h), without a GPU: fixed chunks cover a range exactly and never
 * exceed the launch limit, and pools of no GPU or too many are refused.
 * The GPU side (bit-identity for any split, photons given back) is
 * tests/test_multi_gpu.sh. */
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "gpu_pool.h"

/* Hands out [0, count) in chunks; the number of chunks, or 0 when a chunk
 * was empty or too large. */
static uint64_t walk(uint64_t count, uint64_t chunk, uint64_t max_chunk, uint64_t *smallest,
                     uint64_t *largest)
{
    uint64_t next = 0, chunks = 0;
    *smallest = UINT64_MAX;
    *largest = 0;
    while (next < count) {
        uint64_t n = gpu_pool_chunk(count - next, chunk, max_chunk);
        if (n == 0 || n > count - next || n > max_chunk)
            return 0;
        *smallest = n < *smallest ? n : *smallest;
        *largest = n > *largest ? n : *largest;
        next += n;
        chunks++;
    }
    return next == count ? chunks : 0;
}

static void test_chunks(void)
{
    uint64_t lo, hi;
    CHECK(walk(1000000, 77777, UINT64_C(1) << 32, &lo, &hi) == 1000000 / 77777 + 1);
    CHECK(hi == 77777 && lo == 1000000 % 77777);
    /* A chunk above the launch limit is cut to it. */
    CHECK(walk(1000, 600, 250, &lo, &hi) == 4 && hi == 250);
    CHECK(walk(1, 5, 5, &lo, &hi) == 1 && hi == 1);
}

static void test_refusals(void)
{
    gpu_pool *pool = NULL;
    tm_error err = {0};
    int devices[GPU_POOL_MAX + 1] = {0};
    CHECK(!gpu_pool_open(devices, 0, &pool, &err));
    CHECK_CONTAINS(err.message, "0 GPUs");
    CHECK(!gpu_pool_open(devices, GPU_POOL_MAX + 1, &pool, &err));
    CHECK_CONTAINS(err.message, "1 to 64");
    CHECK(pool == NULL);
}

int main(void)
{
    test_chunks();
    test_refusals();
    return check_summary("test_gpu_pool");
}
