/* runtime/engine/cuda_driver.c, the driver API through dlopen.  Modes:
 *   no-driver  cuda_open must fail cleanly with a clear message (skipped, 77,
 *              when a driver and a GPU are present);
 *   stub PATH  the CUDA Toolkit's stub libcuda: symbols resolve, cuInit says
 *              it is a stub, and we say so;
 *   gpu        on a GPU (label gpu; 77 "no GPU: skipped" without one):
 *              devices, memory round trips, an NVRTC cubin for the device's
 *              arch loaded and launched (its values checked against the C
 *              engine's copy of the same generator), dynamic shared memory
 *              over 48 KiB, stream and event ordering, a wrong-arch cubin,
 *              and an illegal address reported by the wait after the launch. */
#include "check.h"
#include "compile.h"
#include "cuda_driver.h"
#include "fixed_point.h"
#include "mwc_kernel.h"
#include "rng.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int no_driver(void)
{
    cuda_driver *drv = (cuda_driver *)1;
    tm_error err = {0};
    if (cuda_open(&drv, &err)) {
        printf("a CUDA driver and GPU are present: skipped (see the gpu_cuda test)\n");
        cuda_close(drv);
        return 77;
    }
    CHECK(drv == NULL);
    printf("without a driver: %s\n", err.message);
    CHECK_MSG(strstr(err.message, "no NVIDIA driver: libcuda.so.1 could not be loaded") ||
                  strstr(err.message, "built without the CUDA Toolkit") ||
                  strstr(err.message, "no CUDA device"),
              "unclear message: %s", err.message);
    tm_error err2 = {0};
    CHECK(!cuda_describe_devices(stdout, &err2));
    CHECK(strcmp(err.message, err2.message) == 0);
    return check_summary("test_cuda no-driver");
}

static int stub(const char *path)
{
    setenv("TMCML_LIBCUDA", path, 1);
    cuda_driver *drv;
    tm_error err = {0};
    CHECK(!cuda_open(&drv, &err));
    CHECK(drv == NULL);
    printf("with the stub library: %s\n", err.message);
    CHECK_CONTAINS(err.message, "stub library");
    return check_summary("test_cuda stub");
}

/* ---- gpu ---------------------------------------------------------------- */

static const char gpu_source[] =
    "#include \"rng_mwc.h\"\n"
    "#include \"fixed_point.h\"\n"
    "\n"
    "__device__ unsigned long long tmcml_test_global = 0x0123456789abcdefull;\n"
    "\n" MWC_KERNEL_HEAD "    unsigned long long h = fixed_point_from_weight(mwc_uniform(&s));\n"
    "    for (int k = 0; k < 64; k++)\n"
    "        h = h * 0x100000001b3ull ^ mwc_next(&s);\n"
    "    out[i] = h;\n"
    "}\n"
    "\n"
    "extern \"C\" __global__ void shared_kernel(unsigned int *out, unsigned int words)\n"
    "{\n"
    "    extern __shared__ unsigned int buf[];\n"
    "    for (unsigned int i = threadIdx.x; i < words; i += blockDim.x)\n"
    "        buf[i] = 3u * i + blockIdx.x;\n"
    "    __syncthreads();\n"
    "    for (unsigned int i = threadIdx.x; i < words; i += blockDim.x)\n"
    "        out[blockIdx.x * words + i] = buf[words - 1u - i];\n"
    "}\n"
    "\n"
    "// Spins for `cycles` clock cycles, then sets *flag: work that is still\n"
    "// running when the host queues what must wait for it.\n"
    "extern \"C\" __global__ void spin_kernel(long long cycles, unsigned int *flag)\n"
    "{\n"
    "    long long t0 = clock64();\n"
    "    while (clock64() - t0 < cycles) {}\n"
    "    *flag = 1u;\n"
    "}\n"
    "\n"
    "extern \"C\" __global__ void illegal_kernel(int *p)\n"
    "{\n"
    "    p[threadIdx.x] = 1;\n"
    "}\n";

static render_header headers[2];

static bool compile_for(int arch, compile_result *r)
{
    render_output src = {.source = (char *)gpu_source,
                         .kernel_name = (char *)"tmcml_test_kernel",
                         .num_headers = 2,
                         .headers = headers};
    compile_options o = {.arch = arch, .cache_dir = ""};
    tm_error err = {0};
    bool ok = compile_cubin(&src, &o, r, &err);
    if (!ok)
        fprintf(stderr, "compile for sm_%d failed: %s\n", arch, err.message);
    return ok;
}

static void test_devices(cuda_driver *drv, cuda_device_info *info)
{
    tm_error err = {0};
    CHECK(cuda_describe_devices(stdout, &err));
    int n = cuda_device_count(drv);
    CHECK(n >= 1);
    CHECK(cuda_device_query(drv, 0, info, &err));
    CHECK(info->name[0] != '\0');
    CHECK(info->cc_major >= 5 && info->sm_count > 0);
    CHECK(info->shared_per_block_optin >= 48 * 1024 && info->shared_per_sm > 0);
    CHECK(info->max_threads_per_sm > 0 && info->regs_per_sm > 0);
    CHECK(info->total_memory > 0 && info->free_memory > 0 &&
          info->free_memory <= info->total_memory);
    CHECK(info->driver_version >= 12000);
    cuda_device_info none;
    CHECK(!cuda_device_query(drv, n, &none, &err));
    CHECK_CONTAINS(err.message, "there is no GPU");
}

/* A launch and the wait for it, as the tests need it. */
static bool launch_wait(cuda_module *mod, const char *name, unsigned grid, unsigned block,
                        size_t shared, void **args, cuda_stream *st, tm_error *err)
{
    char what[128];
    snprintf(what, sizeof what, "cuLaunchKernel(%s)", name);
    return cuda_launch(mod, name, grid, block, shared, args, st, err) &&
           cuda_stream_wait(st, what, err);
}

static void test_memory(cuda_context *ctx, cuda_stream *st)
{
    tm_error err = {0};
    const size_t n = 1 << 20;
    unsigned char *a = malloc(n), *b = malloc(n);
    for (size_t i = 0; i < n; i++)
        a[i] = (unsigned char)(i * 7 + 3);
    cuda_ptr p = 0;
    CHECK(cuda_alloc(ctx, n, &p, &err) && p != 0);
    CHECK(cuda_upload(st, p, a, n, &err));
    memset(b, 0, n);
    CHECK(cuda_download(st, b, p, n, &err));
    CHECK(memcmp(a, b, n) == 0);
    /* queued, not waited for: the download after it on the stream sees it */
    CHECK(cuda_memset_zero(st, p + 4096, n - 8192, &err));
    CHECK(cuda_download(st, b, p, n, &err));
    bool ok = memcmp(a, b, 4096) == 0 && memcmp(a + n - 4096, b + n - 4096, 4096) == 0;
    for (size_t i = 4096; i < n - 4096; i++)
        ok = ok && b[i] == 0;
    CHECK(ok);
    cuda_free(ctx, p);
    /* more than the device has: a clear error, not a crash */
    CHECK(!cuda_alloc(ctx, (size_t)1 << 50, &p, &err));
    CHECK_CONTAINS(err.message, "CUDA_ERROR_OUT_OF_MEMORY");
    free(a);
    free(b);
}

typedef struct thread_job {
    cuda_stream *st;
    cuda_ptr p;
    unsigned long long value;
    bool ok;
} thread_job;

/* Another thread, which never made the context current itself. */
static void *download_on_thread(void *arg)
{
    thread_job *j = arg;
    tm_error err;
    j->ok = cuda_download(j->st, &j->value, j->p, sizeof j->value, &err);
    return NULL;
}

static void test_kernels(cuda_context *ctx, cuda_stream *st, const cuda_device_info *info,
                         cuda_module *mod)
{
    tm_error err = {0};
    cuda_ptr global = 0;
    size_t size = 0;
    CHECK(cuda_module_global(mod, "tmcml_test_global", &global, &size, &err) && size == 8);
    unsigned long long g = 0;
    CHECK(cuda_download(st, &g, global, sizeof g, &err) && g == 0x0123456789abcdefull);
    thread_job job = {.st = st, .p = global};
    pthread_t t;
    CHECK(pthread_create(&t, NULL, download_on_thread, &job) == 0);
    pthread_join(t, NULL);
    CHECK(job.ok && job.value == 0x0123456789abcdefull);
    CHECK(!cuda_module_global(mod, "no_such_global", &global, &size, &err));
    CHECK_CONTAINS(err.message, "no_such_global");

    /* the generator on the GPU == the C engine's copy, bit for bit: the
     * first uniform, then 64 raw draws folded into one value (the GPU's
     * mwc_next is its own code, templates/rng_mwc.h) */
    int n = 100000;
    unsigned long long seed = 12345;
    size_t table = sizeof(uint32_t) * MWC_MULTIPLIER_COUNT;
    cuda_ptr mult = 0, out = 0;
    CHECK(cuda_alloc(ctx, table, &mult, &err) &&
          cuda_upload(st, mult, rng_mwc_multipliers, table, &err));
    CHECK(cuda_alloc(ctx, n * sizeof(unsigned long long), &out, &err));
    void *args[] = {&mult, &seed, &out, &n};
    CHECK_MSG(
        launch_wait(mod, "tmcml_test_kernel", (unsigned)(n + 255) / 256, 256, 0, args, st, &err),
        "%s", err.message);
    unsigned long long *got = calloc((size_t)n, sizeof *got);
    CHECK(cuda_download(st, got, out, n * sizeof *got, &err));
    int wrong = 0;
    for (int i = 0; i < n; i++) {
        mwc_state s;
        mwc_seed(&s, seed, (unsigned long long)i, rng_mwc_multipliers);
        unsigned long long h = fixed_point_from_weight(mwc_uniform(&s));
        for (int k = 0; k < 64; k++)
            h = h * 0x100000001b3ull ^ mwc_next(&s);
        wrong += got[i] != h;
    }
    CHECK_MSG(wrong == 0, "%d of %d values differ from the CPU's", wrong, n);
    free(got);
    cuda_free(ctx, mult);
    cuda_free(ctx, out);

    int blocks = 0;
    CHECK(cuda_occupancy(mod, "tmcml_test_kernel", 256, 0, &blocks, &err) && blocks >= 1);
    printf("occupancy of tmcml_test_kernel at 256 threads: %d blocks/SM\n", blocks);

    /* dynamic shared memory past 48 KiB needs the opt-in */
    unsigned words = (unsigned)(info->shared_per_block_optin / 4) - 256;
    size_t shared = words * sizeof(unsigned);
    unsigned grid = 4;
    cuda_ptr sout = 0;
    CHECK(cuda_alloc(ctx, grid * shared, &sout, &err));
    void *sargs[] = {&sout, &words};
    CHECK_MSG(launch_wait(mod, "shared_kernel", grid, 256, shared, sargs, st, &err), "%s",
              err.message);
    unsigned *sgot = calloc((size_t)grid * words, sizeof *sgot);
    CHECK(cuda_download(st, sgot, sout, grid * shared, &err));
    int swrong = 0;
    for (unsigned b = 0; b < grid; b++)
        for (unsigned i = 0; i < words; i++)
            swrong += sgot[b * words + i] != 3u * (words - 1u - i) + b;
    CHECK_MSG(swrong == 0, "%d shared-memory values wrong", swrong);
    free(sgot);
    CHECK(cuda_occupancy(mod, "shared_kernel", 256, shared, &blocks, &err) && blocks == 1);
    printf("shared_kernel: %zu bytes of dynamic shared memory, %d block/SM\n", shared, blocks);
    CHECK(!cuda_launch(mod, "shared_kernel", grid, 256, info->shared_per_block_optin + 4096, sargs,
                       st, &err));
    CHECK_CONTAINS(err.message, "allows at most");
    cuda_free(ctx, sout);

    CHECK(!cuda_launch(mod, "no_such_kernel", 1, 1, 0, args, st, &err));
    CHECK_CONTAINS(err.message, "cuModuleGetFunction(no_such_kernel): CUDA_ERROR_NOT_FOUND");
}

static void test_wrong_arch(cuda_context *ctx, const cuda_device_info *info)
{
    int other = info->cc_major == 8 ? 90 : 80;
    compile_result r;
    tm_error err = {0};
    CHECK(compile_for(other, &r));
    cuda_module *mod = NULL;
    CHECK(!cuda_module_load(ctx, r.cubin, &mod, &err));
    CHECK(mod == NULL);
    char want[64];
    snprintf(want, sizeof want, "the cubin was built for sm_%d but GPU 0 is sm_%d%d", other,
             info->cc_major, info->cc_minor);
    CHECK_CONTAINS(err.message, want);
    printf("wrong arch: %s\n", err.message);
    compile_result_free(&r);
}

/* A kernel still running on stream a: the event after it is not done before
 * the kernel is, stream b's copy queued after waiting for the event sees what
 * the kernel wrote, and a memset queued on a before the kernel is done before
 * it starts. */
static void test_ordering(cuda_context *ctx, cuda_stream *a, cuda_stream *b, cuda_module *mod,
                          int clock_khz)
{
    tm_error err = {0};
    cuda_ptr flag = 0;
    cuda_event *ev = NULL;
    CHECK(cuda_alloc(ctx, sizeof(unsigned), &flag, &err) && cuda_event_create(ctx, &ev, &err));
    if (!flag || !ev)
        return;
    unsigned one = 1, got = 7;
    CHECK(cuda_upload(a, flag, &one, sizeof one, &err));
    long long cycles = (long long)clock_khz * 200; /* 0.2 s */
    void *args[] = {&cycles, &flag};
    CHECK(cuda_memset_zero(a, flag, sizeof(unsigned), &err));
    CHECK(cuda_launch(mod, "spin_kernel", 1, 1, 0, args, a, &err));
    CHECK(cuda_event_record(ev, a, &err));
    CHECK(cuda_stream_wait_event(b, ev, &err));
    CHECK(cuda_download(b, &got, flag, sizeof got, &err));
    CHECK_MSG(got == 1u, "stream b read %u before the kernel of stream a had set the flag", got);
    bool done = false;
    CHECK(cuda_event_done(ev, &done, &err) && done);
    CHECK(cuda_event_wait(ev, "spin_kernel", &err));
    cuda_event_destroy(ev);
    cuda_free(ctx, flag);
}

/* Last: it leaves the context unusable. */
static void test_illegal_address(cuda_context *ctx, cuda_stream *st, cuda_module *mod)
{
    tm_error err = {0};
    cuda_ptr bogus = 16;
    void *args[] = {&bogus};
    CHECK(!launch_wait(mod, "illegal_kernel", 1, 32, 0, args, st, &err));
    printf("illegal address: %s\n", err.message);
    CHECK_CONTAINS(err.message, "cuLaunchKernel(illegal_kernel): CUDA_ERROR_ILLEGAL_ADDRESS");
    CHECK_CONTAINS(err.message, "unusable");
    cuda_ptr p = 0;
    CHECK(!cuda_alloc(ctx, 1024, &p, &err));
    CHECK_CONTAINS(err.message, "unusable after CUDA_ERROR_ILLEGAL_ADDRESS");
    CHECK(!cuda_launch(mod, "tmcml_test_kernel", 1, 1, 0, args, st, &err));
}

static int gpu(void)
{
    cuda_driver *drv;
    tm_error err = {0};
    if (!cuda_open(&drv, &err)) {
        printf("no GPU: skipped (%s)\n", err.message);
        return 77;
    }
    /* The headers the generated kernels include, as embedded in the binary. */
    static const char *const names[2] = {"rng_mwc.h", "fixed_point.h"};
    for (int i = 0; i < 2; i++)
        headers[i] = (render_header){names[i], render_embedded(names[i])->text};

    cuda_device_info info;
    test_devices(drv, &info);
    cuda_context *ctx = NULL;
    CHECK_MSG(cuda_context_open(drv, 0, &ctx, &err), "%s", err.message);
    cuda_stream *st = NULL, *other = NULL;
    if (ctx)
        CHECK_MSG(cuda_stream_create(ctx, &st, &err) && cuda_stream_create(ctx, &other, &err), "%s",
                  err.message);
    if (ctx && st && other) {
        test_memory(ctx, st);
        compile_result r;
        cuda_module *mod = NULL;
        /* twice: the second compile must still report ptxas' figures (NVRTC
         * 13's own driver-side cache would hide them) */
        int arch = info.cc_major * 10 + info.cc_minor;
        CHECK(compile_for(arch, &r) && r.registers > 0);
        compile_result_free(&r);
        if (compile_for(arch, &r)) {
            CHECK(r.registers > 0);
            CHECK_MSG(cuda_module_load(ctx, r.cubin, &mod, &err), "%s", err.message);
            printf("sm_%d%d cubin: %zu bytes, %d registers\n", info.cc_major, info.cc_minor,
                   r.cubin_size, r.registers);
        } else {
            CHECK(!"compile for the device's arch");
        }
        compile_result_free(&r);
        if (mod) {
            test_kernels(ctx, st, &info, mod);
            test_ordering(ctx, st, other, mod, info.clock_khz);
            test_wrong_arch(ctx, &info);
            test_illegal_address(ctx, st, mod);
        }
        cuda_module_unload(mod);
        cuda_stream_destroy(st);
        cuda_stream_destroy(other);
        cuda_context_close(ctx);
    }
    cuda_close(drv);
    return check_summary("test_cuda gpu");
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "no-driver") == 0)
        return no_driver();
    if (argc > 2 && strcmp(argv[1], "stub") == 0)
        return stub(argv[2]);
    if (argc > 1 && strcmp(argv[1], "gpu") == 0)
        return gpu();
    fprintf(stderr, "usage: test_cuda no-driver | stub LIBCUDA | gpu\n");
    return 2;
}
