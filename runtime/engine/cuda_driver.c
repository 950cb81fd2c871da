/* The CUDA driver API through dlopen("libcuda.so.1") (runtime/engine/cuda_driver.h).
 *
 * Versioned entry points.  cuda.h #defines many names to later ABI versions
 * (cuMemAlloc -> cuMemAlloc_v2, cuMemcpyHtoD -> cuMemcpyHtoD_v2,
 * cuMemsetD8 -> cuMemsetD8_v2, cuMemFree, cuMemGetInfo, cuModuleGetGlobal,
 * cuDeviceTotalMem, cuDevicePrimaryCtxRelease -> ..._v2).  The library still
 * exports the unversioned names, with the *old* ABI: dlsym("cuMemAlloc")
 * returns the CUDA 3.1 function that takes a 32-bit size and writes a 32-bit
 * device pointer, which corrupts memory on a real GPU.  So entry points are
 * resolved with cuGetProcAddress_v2 (drivers >= 12.0) asking for the ABI of
 * CUDA 12.0, which is the ABI of the prototypes declared below, and for the
 * legacy default stream (no _ptds/_ptsz variants).  Where that is missing or
 * fails, dlsym is given the explicit ABI name ("cuMemAlloc_v2").  The
 * function pointer types are declared here by hand, each matching the
 * version named in the table, never taken from the #defined prototypes.
 *
 * Contexts: every function that touches the device makes the context current
 * on the calling thread first, so callers need not care which thread they
 * are on.  After a sticky error (an illegal address in a kernel, ...) the
 * context is unusable until the process exits: we remember that and say so
 * in every later error instead of returning confusing secondary failures. */
#include "cuda_driver.h"

#include <stdlib.h>
#include <string.h>

#include <dlfcn.h>
#include <stddef.h>

#include "cuda_abi.h"

/* The ABI asked of cuGetProcAddress: see the comment at the top. */
#define CUDA_ABI_VERSION 12000

struct cuda_driver {
    void *lib; /* dlopen handle; see cuda_close for why it is never closed */
    int driver_version;
    int device_count;
    /* Each pointer has the ABI of the name in driver_symbols[]. */
    CUresult (*GetErrorName)(CUresult, const char **);
    CUresult (*GetErrorString)(CUresult, const char **);
    CUresult (*Init)(unsigned int);
    CUresult (*DriverGetVersion)(int *);
    CUresult (*DeviceGetCount)(int *);
    CUresult (*DeviceGet)(CUdevice *, int);
    CUresult (*DeviceGetName)(char *, int, CUdevice);
    CUresult (*DeviceGetAttribute)(int *, CUdevice_attribute, CUdevice);
    CUresult (*DeviceTotalMem)(size_t *, CUdevice);
    CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*DevicePrimaryCtxRelease)(CUdevice);
    CUresult (*CtxSetCurrent)(CUcontext);
    CUresult (*CtxGetCurrent)(CUcontext *);
    CUresult (*MemGetInfo)(size_t *, size_t *);
    CUresult (*ModuleLoadData)(CUmodule *, const void *);
    CUresult (*ModuleUnload)(CUmodule);
    CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*ModuleGetGlobal)(CUdeviceptr *, size_t *, CUmodule, const char *);
    CUresult (*FuncGetAttribute)(int *, CUfunction_attribute, CUfunction);
    CUresult (*FuncSetAttribute)(CUfunction, CUfunction_attribute, int);
    CUresult (*MemAlloc)(CUdeviceptr *, size_t);
    CUresult (*MemFree)(CUdeviceptr);
    CUresult (*LaunchKernel)(CUfunction, unsigned int, unsigned int, unsigned int, unsigned int,
                             unsigned int, unsigned int, unsigned int, CUstream, void **, void **);
    CUresult (*OccupancyMaxActiveBlocksPerMultiprocessor)(int *, CUfunction, int, size_t);
    CUresult (*StreamCreate)(CUstream *, unsigned int);
    CUresult (*StreamDestroy)(CUstream);
    CUresult (*StreamSynchronize)(CUstream);
    CUresult (*MemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
    CUresult (*MemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
    CUresult (*MemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
    CUresult (*EventCreate)(CUevent *, unsigned int);
    CUresult (*EventDestroy)(CUevent);
    CUresult (*EventRecord)(CUevent, CUstream);
    CUresult (*EventQuery)(CUevent);
    CUresult (*EventSynchronize)(CUevent);
    CUresult (*StreamWaitEvent)(CUstream, CUevent, unsigned int);
};

struct cuda_context {
    cuda_driver *drv;
    int index;
    CUdevice dev;
    CUcontext ctx;
    int arch;               /* 10 * major + minor */
    size_t shared_optin;    /* max shared memory per block, opted in */
    CUresult sticky;        /* CUDA_SUCCESS until a sticky error */
    char sticky_where[160]; /* the call that hit it */
};

struct cuda_module {
    cuda_context *ctx;
    CUmodule mod;
};

struct cuda_stream {
    cuda_context *ctx;
    CUstream stream;
};

/* name: for cuGetProcAddress (the driver picks the version for
 * CUDA_ABI_VERSION); abi: the exported symbol of that version, for dlsym. */
static const struct {
    const char *name, *abi;
    size_t offset;
} driver_symbols[] = {
#define SYM(name, abi, field)                                                                      \
    {                                                                                              \
        name, abi, offsetof(cuda_driver, field)                                                    \
    }
    SYM("cuGetErrorName", "cuGetErrorName", GetErrorName),
    SYM("cuGetErrorString", "cuGetErrorString", GetErrorString),
    SYM("cuInit", "cuInit", Init),
    SYM("cuDriverGetVersion", "cuDriverGetVersion", DriverGetVersion),
    SYM("cuDeviceGetCount", "cuDeviceGetCount", DeviceGetCount),
    SYM("cuDeviceGet", "cuDeviceGet", DeviceGet),
    SYM("cuDeviceGetName", "cuDeviceGetName", DeviceGetName),
    SYM("cuDeviceGetAttribute", "cuDeviceGetAttribute", DeviceGetAttribute),
    SYM("cuDeviceTotalMem", "cuDeviceTotalMem_v2", DeviceTotalMem),
    SYM("cuDevicePrimaryCtxRetain", "cuDevicePrimaryCtxRetain", DevicePrimaryCtxRetain),
    SYM("cuDevicePrimaryCtxRelease", "cuDevicePrimaryCtxRelease_v2", DevicePrimaryCtxRelease),
    SYM("cuCtxSetCurrent", "cuCtxSetCurrent", CtxSetCurrent),
    SYM("cuCtxGetCurrent", "cuCtxGetCurrent", CtxGetCurrent),
    SYM("cuMemGetInfo", "cuMemGetInfo_v2", MemGetInfo),
    SYM("cuModuleLoadData", "cuModuleLoadData", ModuleLoadData),
    SYM("cuModuleUnload", "cuModuleUnload", ModuleUnload),
    SYM("cuModuleGetFunction", "cuModuleGetFunction", ModuleGetFunction),
    SYM("cuModuleGetGlobal", "cuModuleGetGlobal_v2", ModuleGetGlobal),
    SYM("cuFuncGetAttribute", "cuFuncGetAttribute", FuncGetAttribute),
    SYM("cuFuncSetAttribute", "cuFuncSetAttribute", FuncSetAttribute),
    SYM("cuMemAlloc", "cuMemAlloc_v2", MemAlloc),
    SYM("cuMemFree", "cuMemFree_v2", MemFree),
    SYM("cuLaunchKernel", "cuLaunchKernel", LaunchKernel),
    SYM("cuOccupancyMaxActiveBlocksPerMultiprocessor",
        "cuOccupancyMaxActiveBlocksPerMultiprocessor", OccupancyMaxActiveBlocksPerMultiprocessor),
    SYM("cuStreamCreate", "cuStreamCreate", StreamCreate),
    SYM("cuStreamDestroy", "cuStreamDestroy_v2", StreamDestroy),
    SYM("cuStreamSynchronize", "cuStreamSynchronize", StreamSynchronize),
    SYM("cuMemsetD8Async", "cuMemsetD8Async", MemsetD8Async),
    SYM("cuMemcpyDtoHAsync", "cuMemcpyDtoHAsync_v2", MemcpyDtoHAsync),
    SYM("cuMemcpyHtoDAsync", "cuMemcpyHtoDAsync_v2", MemcpyHtoDAsync),
    SYM("cuEventCreate", "cuEventCreate", EventCreate),
    SYM("cuEventDestroy", "cuEventDestroy_v2", EventDestroy),
    SYM("cuEventRecord", "cuEventRecord", EventRecord),
    SYM("cuEventQuery", "cuEventQuery", EventQuery),
    SYM("cuEventSynchronize", "cuEventSynchronize", EventSynchronize),
    SYM("cuStreamWaitEvent", "cuStreamWaitEvent", StreamWaitEvent),
#undef SYM
};

_Static_assert(sizeof(void *) == sizeof(void (*)(void)),
               "dlsym results are stored into function pointers");

typedef CUresult (*get_proc_fn)(const char *, void **, int, cuuint64_t,
                                CUdriverProcAddressQueryResult *);

static bool driver_bind(cuda_driver *drv, tm_error *err)
{
    get_proc_fn get_proc = NULL;
    void *p = dlsym(drv->lib, "cuGetProcAddress_v2");
    memcpy(&get_proc, &p, sizeof p);
    for (size_t i = 0; i < sizeof driver_symbols / sizeof driver_symbols[0]; i++) {
        void *fn = NULL;
        CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        if (!get_proc ||
            get_proc(driver_symbols[i].name, &fn, CUDA_ABI_VERSION,
                     CU_GET_PROC_ADDRESS_LEGACY_STREAM, &status) != CUDA_SUCCESS ||
            status != CU_GET_PROC_ADDRESS_SUCCESS)
            fn = dlsym(drv->lib, driver_symbols[i].abi);
        if (!fn) {
            error_set(err, NULL, 0,
                      "the NVIDIA driver is too old: libcuda.so.1 lacks %s (update the driver)",
                      driver_symbols[i].abi);
            return false;
        }
        memcpy((char *)drv + driver_symbols[i].offset, &fn, sizeof fn);
    }
    return true;
}

static const char *error_name(const cuda_driver *drv, CUresult rc)
{
    const char *s = NULL;
    if (drv->GetErrorName && drv->GetErrorName(rc, &s) == CUDA_SUCCESS && s)
        return s;
    static _Thread_local char code[32]; /* the stub library names nothing */
    snprintf(code, sizeof code, "CUDA error %d", (int)rc);
    return code;
}

static const char *error_text(const cuda_driver *drv, CUresult rc)
{
    const char *s = NULL;
    if (drv->GetErrorString && drv->GetErrorString(rc, &s) == CUDA_SUCCESS && s)
        return s;
    return "(no description)";
}

/* Errors after which the context cannot be used again (the CUDA
 * documentation: "the process must be terminated and relaunched"). */
static bool is_sticky(CUresult rc)
{
    switch (rc) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_ECC_UNCORRECTABLE: return true;
    default: return false;
    }
}

/* "what: CUDA_ERROR_X: text", remembering a sticky error in the context. */
static bool check(cuda_context *ctx, const cuda_driver *drv, CUresult rc, const char *what,
                  tm_error *err)
{
    if (rc == CUDA_SUCCESS)
        return true;
    if (ctx && is_sticky(rc)) {
        ctx->sticky = rc;
        snprintf(ctx->sticky_where, sizeof ctx->sticky_where, "%s", what);
        error_set(err, NULL, 0,
                  "%s: %s: %s (the CUDA context of GPU %d is now unusable: restart tmcml)", what,
                  error_name(drv, rc), error_text(drv, rc), ctx->index);
    } else {
        error_set(err, NULL, 0, "%s: %s: %s", what, error_name(drv, rc), error_text(drv, rc));
    }
    return false;
}

/* Makes ctx current on this thread, unless an earlier sticky error broke it. */
static bool enter(cuda_context *ctx, tm_error *err)
{
    if (ctx->sticky != CUDA_SUCCESS) {
        error_set(err, NULL, 0,
                  "the CUDA context of GPU %d is unusable after %s in %s: restart tmcml",
                  ctx->index, error_name(ctx->drv, ctx->sticky), ctx->sticky_where);
        return false;
    }
    return check(ctx, ctx->drv, ctx->drv->CtxSetCurrent(ctx->ctx), "cuCtxSetCurrent", err);
}

/* ---- driver and devices ------------------------------------------------------- */

bool cuda_open(cuda_driver **drvp, tm_error *err)
{
    *drvp = NULL;
    /* TMCML_LIBCUDA: another library file, for tests and unusual installs. */
    const char *name = getenv("TMCML_LIBCUDA");
    if (!name || !name[0])
        name = "libcuda.so.1";
    cuda_driver *drv = calloc(1, sizeof *drv);
    if (!drv) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    drv->lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!drv->lib) {
        const char *e = dlerror();
        error_set(err, NULL, 0, "no NVIDIA driver: %s could not be loaded (%s)", name,
                  e ? e : "unknown reason");
        free(drv);
        return false;
    }
    if (!driver_bind(drv, err))
        goto fail;
    CUresult rc = drv->Init(0);
    if (rc == CUDA_ERROR_STUB_LIBRARY) {
        error_set(err, NULL, 0,
                  "%s is the CUDA Toolkit's stub library, not an NVIDIA driver (cuInit: %s)", name,
                  error_name(drv, rc));
        goto fail;
    }
#if defined(__SANITIZE_ADDRESS__)
    if (rc == CUDA_ERROR_OUT_OF_MEMORY) {
        error_set(err, NULL, 0,
                  "cuInit: %s (under AddressSanitizer the driver needs "
                  "ASAN_OPTIONS=protect_shadow_gap=0)",
                  error_name(drv, rc));
        goto fail;
    }
#endif
    if (rc == CUDA_ERROR_NO_DEVICE) {
        error_set(err, NULL, 0, "no CUDA device (cuInit: %s: %s)", error_name(drv, rc),
                  error_text(drv, rc));
        goto fail;
    }
    if (!check(NULL, drv, rc, "cuInit", err) ||
        !check(NULL, drv, drv->DriverGetVersion(&drv->driver_version), "cuDriverGetVersion", err) ||
        !check(NULL, drv, drv->DeviceGetCount(&drv->device_count), "cuDeviceGetCount", err))
        goto fail;
    if (drv->device_count <= 0) {
        error_set(err, NULL, 0, "no CUDA device (the NVIDIA driver %d.%d sees none)",
                  drv->driver_version / 1000, drv->driver_version % 1000 / 10);
        goto fail;
    }
    *drvp = drv;
    return true;
fail:
    cuda_close(drv);
    return false;
}

void cuda_close(cuda_driver *drv)
{
    /* The handle is not dlclose'd: the driver keeps threads and atexit
     * handlers of its own, and unmapping it under them crashes at exit.
     * dlopen counts references, so a later cuda_open gets the same library. */
    free(drv);
}

int cuda_device_count(const cuda_driver *drv) { return drv ? drv->device_count : 0; }

static bool device_get(cuda_driver *drv, int index, CUdevice *dev, tm_error *err)
{
    if (index < 0 || index >= drv->device_count) {
        error_set(err, NULL, 0, "there is no GPU %d (this machine has %d)", index,
                  drv->device_count);
        return false;
    }
    return check(NULL, drv, drv->DeviceGet(dev, index), "cuDeviceGet", err);
}

/* Free memory needs a context: retain the primary one for the moment (cheap
 * when the engine already holds it) and give the thread back its own. */
static bool device_free_memory(cuda_driver *drv, CUdevice dev, size_t *free_bytes, size_t *total,
                               tm_error *err)
{
    CUcontext prev = NULL, ctx = NULL;
    if (!check(NULL, drv, drv->CtxGetCurrent(&prev), "cuCtxGetCurrent", err) ||
        !check(NULL, drv, drv->DevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain", err))
        return false;
    bool ok = check(NULL, drv, drv->CtxSetCurrent(ctx), "cuCtxSetCurrent", err) &&
              check(NULL, drv, drv->MemGetInfo(free_bytes, total), "cuMemGetInfo", err);
    drv->CtxSetCurrent(prev);
    drv->DevicePrimaryCtxRelease(dev);
    return ok;
}

bool cuda_device_query(cuda_driver *drv, int index, cuda_device_info *info, tm_error *err)
{
    memset(info, 0, sizeof *info);
    CUdevice dev;
    if (!device_get(drv, index, &dev, err))
        return false;
    info->index = index;
    info->driver_version = drv->driver_version;
    if (!check(NULL, drv, drv->DeviceGetName(info->name, (int)sizeof info->name - 1, dev),
               "cuDeviceGetName", err))
        return false;
    int optin = 0, per_sm = 0;
    const struct {
        CUdevice_attribute attr;
        int *value;
    } attrs[] = {
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &info->cc_major},
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &info->cc_minor},
        {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &info->sm_count},
        {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &optin},
        {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, &per_sm},
        {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, &info->max_threads_per_sm},
        {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, &info->regs_per_sm},
        {CU_DEVICE_ATTRIBUTE_CLOCK_RATE, &info->clock_khz},
        {CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, &info->pci_domain},
        {CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, &info->pci_bus},
        {CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, &info->pci_device},
    };
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
        if (!check(NULL, drv, drv->DeviceGetAttribute(attrs[i].value, attrs[i].attr, dev),
                   "cuDeviceGetAttribute", err))
            return false;
    info->shared_per_block_optin = (size_t)optin;
    info->shared_per_sm = (size_t)per_sm;
    return check(NULL, drv, drv->DeviceTotalMem(&info->total_memory, dev), "cuDeviceTotalMem",
                 err) &&
           device_free_memory(drv, dev, &info->free_memory, &info->total_memory, err);
}

bool cuda_describe_devices(FILE *out, tm_error *err)
{
    cuda_driver *drv;
    if (!cuda_open(&drv, err))
        return false;
    for (int i = 0; i < drv->device_count; i++) {
        cuda_device_info d;
        tm_error e;
        if (!cuda_device_query(drv, i, &d, &e)) {
            fprintf(out, "GPU %d: %s\n", i, e.message);
            continue;
        }
        fprintf(out,
                "GPU %d: %s, sm_%d%d, %d SMs, shared memory %zu KiB/block (opt-in) %zu KiB/SM, "
                "memory %.1f GiB free of %.1f GiB, driver %d.%d\n",
                i, d.name, d.cc_major, d.cc_minor, d.sm_count, d.shared_per_block_optin / 1024,
                d.shared_per_sm / 1024, (double)d.free_memory / (1 << 30),
                (double)d.total_memory / (1 << 30), d.driver_version / 1000,
                d.driver_version % 1000 / 10);
    }
    cuda_close(drv);
    return true;
}

/* ---- contexts ------------------------------------------------------------------- */

void cuda_context_number(cuda_context *ctx, int number) { ctx->index = number; }

bool cuda_context_open(cuda_driver *drv, int device, cuda_context **ctxp, tm_error *err)
{
    *ctxp = NULL;
    cuda_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    ctx->drv = drv;
    ctx->index = device;
    int major = 0, minor = 0, optin = 0;
    if (!device_get(drv, device, &ctx->dev, err) ||
        !check(
            NULL, drv,
            drv->DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, ctx->dev),
            "cuDeviceGetAttribute", err) ||
        !check(
            NULL, drv,
            drv->DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, ctx->dev),
            "cuDeviceGetAttribute", err) ||
        !check(NULL, drv,
               drv->DeviceGetAttribute(
                   &optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, ctx->dev),
               "cuDeviceGetAttribute", err) ||
        !check(NULL, drv, drv->DevicePrimaryCtxRetain(&ctx->ctx, ctx->dev),
               "cuDevicePrimaryCtxRetain", err)) {
        free(ctx);
        return false;
    }
    ctx->arch = 10 * major + minor;
    ctx->shared_optin = (size_t)optin;
    if (!enter(ctx, err)) {
        cuda_context_close(ctx);
        return false;
    }
    *ctxp = ctx;
    return true;
}

bool cuda_context_broken(const cuda_context *ctx) { return ctx && ctx->sticky != CUDA_SUCCESS; }

void cuda_context_close(cuda_context *ctx)
{
    if (!ctx)
        return;
    /* Not current any more on this thread before the last reference goes. */
    ctx->drv->CtxSetCurrent(NULL);
    ctx->drv->DevicePrimaryCtxRelease(ctx->dev);
    free(ctx);
}

/* ---- modules -------------------------------------------------------------------- */

/* The SM version a CUDA ELF was built for, or -1.  e_flags holds it in bits
 * 0-7 up to ELF ABI version 7 and in bits 8-15 from version 8 (CUDA 12.8+). */
static int cubin_arch(const void *cubin)
{
    const unsigned char *p = cubin;
    if (memcmp(p, "\177ELF", 4) != 0 || p[4] != 2 /* ELFCLASS64 */ ||
        (p[18] | p[19] << 8) != 190 /* EM_CUDA */)
        return -1;
    uint32_t flags =
        (uint32_t)p[48] | (uint32_t)p[49] << 8 | (uint32_t)p[50] << 16 | (uint32_t)p[51] << 24;
    int sm = (int)(p[8] >= 8 ? (flags >> 8) & 0xff : flags & 0xff);
    return sm >= 10 && sm < 256 ? sm : -1;
}

bool cuda_module_load(cuda_context *ctx, const void *cubin, cuda_module **modp, tm_error *err)
{
    *modp = NULL;
    if (!enter(ctx, err))
        return false;
    cuda_driver *drv = ctx->drv;
    CUmodule m;
    CUresult rc = drv->ModuleLoadData(&m, cubin);
    if (rc != CUDA_SUCCESS) {
        int built = cubin_arch(cubin);
        char why[160] = "";
        if (rc == CUDA_ERROR_NO_BINARY_FOR_GPU || rc == CUDA_ERROR_INVALID_IMAGE ||
            rc == CUDA_ERROR_UNSUPPORTED_PTX_VERSION) {
            if (built > 0 && built != ctx->arch)
                snprintf(why, sizeof why, ": the cubin was built for sm_%d but GPU %d is sm_%d",
                         built, ctx->index, ctx->arch);
            else
                snprintf(why, sizeof why,
                         ": the cubin may come from a newer CUDA than the driver (%d.%d) supports",
                         drv->driver_version / 1000, drv->driver_version % 1000 / 10);
        }
        check(ctx, drv, rc, "cuModuleLoadData", err);
        size_t n = strlen(err ? err->message : "");
        if (err && why[0] && n < sizeof err->message - 1)
            snprintf(err->message + n, sizeof err->message - n, "%s", why);
        return false;
    }
    cuda_module *mod = calloc(1, sizeof *mod);
    if (!mod) {
        drv->ModuleUnload(m);
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    mod->ctx = ctx;
    mod->mod = m;
    *modp = mod;
    return true;
}

void cuda_module_unload(cuda_module *mod)
{
    if (!mod)
        return;
    if (enter(mod->ctx, NULL))
        mod->ctx->drv->ModuleUnload(mod->mod);
    free(mod);
}

bool cuda_module_global(cuda_module *mod, const char *name, cuda_ptr *ptr, size_t *size,
                        tm_error *err)
{
    CUdeviceptr p = 0;
    size_t n = 0;
    char what[160];
    snprintf(what, sizeof what, "cuModuleGetGlobal(%s)", name);
    if (!enter(mod->ctx, err) ||
        !check(mod->ctx, mod->ctx->drv, mod->ctx->drv->ModuleGetGlobal(&p, &n, mod->mod, name),
               what, err))
        return false;
    *ptr = p;
    if (size)
        *size = n;
    return true;
}

/* ---- memory --------------------------------------------------------------------- */

bool cuda_alloc(cuda_context *ctx, size_t bytes, cuda_ptr *ptr, tm_error *err)
{
    CUdeviceptr p = 0;
    *ptr = 0;
    char what[64];
    snprintf(what, sizeof what, "cuMemAlloc(%zu bytes)", bytes);
    if (!enter(ctx, err) || !check(ctx, ctx->drv, ctx->drv->MemAlloc(&p, bytes), what, err))
        return false;
    *ptr = p;
    return true;
}

void cuda_free(cuda_context *ctx, cuda_ptr ptr)
{
    /* After a sticky error the memory goes with the context, at exit. */
    if (ptr && enter(ctx, NULL))
        ctx->drv->MemFree((CUdeviceptr)ptr);
}

/* ---- kernels -------------------------------------------------------------------- */

#define DEFAULT_SHARED_LIMIT (48u * 1024u) /* per block, without opting in */

/* Looks kernel `name` up and opts it in to shared_bytes of dynamic shared
 * memory when static + dynamic passes the 48 KiB that need no opt-in. */
static bool function_prepare(cuda_module *mod, const char *name, size_t shared_bytes, CUfunction *f,
                             tm_error *err)
{
    cuda_context *ctx = mod->ctx;
    cuda_driver *drv = ctx->drv;
    char what[160];
    snprintf(what, sizeof what, "cuModuleGetFunction(%s)", name);
    if (!enter(ctx, err) || !check(ctx, drv, drv->ModuleGetFunction(f, mod->mod, name), what, err))
        return false;
    int static_bytes = 0;
    snprintf(what, sizeof what, "cuFuncGetAttribute(%s)", name);
    if (!check(ctx, drv,
               drv->FuncGetAttribute(&static_bytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, *f), what,
               err))
        return false;
    size_t total = shared_bytes + (size_t)static_bytes;
    if (total <= DEFAULT_SHARED_LIMIT)
        return true;
    if (total > ctx->shared_optin) {
        error_set(err, NULL, 0,
                  "kernel %s needs %zu bytes of shared memory per block (%zu dynamic + %d "
                  "static) but GPU %d allows at most %zu",
                  name, total, shared_bytes, static_bytes, ctx->index, ctx->shared_optin);
        return false;
    }
    snprintf(what, sizeof what, "cuFuncSetAttribute(%s, MAX_DYNAMIC_SHARED_SIZE_BYTES=%zu)", name,
             shared_bytes);
    return check(ctx, drv,
                 drv->FuncSetAttribute(*f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                       (int)shared_bytes),
                 what, err);
}

bool cuda_stream_create(cuda_context *ctx, cuda_stream **streamp, tm_error *err)
{
    *streamp = NULL;
    cuda_stream *st = calloc(1, sizeof *st);
    if (!st) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    st->ctx = ctx;
    /* Non-blocking: no implicit synchronisation with the legacy stream. */
    if (!enter(ctx, err) ||
        !check(ctx, ctx->drv, ctx->drv->StreamCreate(&st->stream, CU_STREAM_NON_BLOCKING),
               "cuStreamCreate", err)) {
        free(st);
        return false;
    }
    *streamp = st;
    return true;
}

void cuda_stream_destroy(cuda_stream *st)
{
    if (!st)
        return;
    tm_error ignored;
    if (enter(st->ctx, &ignored)) {
        /* Queued work may still use buffers the caller frees next. */
        st->ctx->drv->StreamSynchronize(st->stream);
        st->ctx->drv->StreamDestroy(st->stream);
    }
    free(st);
}

/* ---- work on a stream ------------------------------------------------------------ */

bool cuda_launch(cuda_module *mod, const char *name, unsigned grid, unsigned block,
                 size_t shared_bytes, void **args, cuda_stream *st, tm_error *err)
{
    CUfunction f;
    if (!function_prepare(mod, name, shared_bytes, &f, err))
        return false;
    char what[160];
    snprintf(what, sizeof what, "cuLaunchKernel(%s)", name);
    return check(mod->ctx, mod->ctx->drv,
                 mod->ctx->drv->LaunchKernel(f, grid, 1, 1, block, 1, 1, (unsigned)shared_bytes,
                                             st->stream, args, NULL),
                 what, err);
}

bool cuda_memset_zero(cuda_stream *st, cuda_ptr dst, size_t bytes, tm_error *err)
{
    return enter(st->ctx, err) &&
           check(st->ctx, st->ctx->drv,
                 st->ctx->drv->MemsetD8Async((CUdeviceptr)dst, 0, bytes, st->stream),
                 "cuMemsetD8Async", err);
}

bool cuda_upload(cuda_stream *st, cuda_ptr dst, const void *src, size_t bytes, tm_error *err)
{
    return enter(st->ctx, err) &&
           check(st->ctx, st->ctx->drv,
                 st->ctx->drv->MemcpyHtoDAsync((CUdeviceptr)dst, src, bytes, st->stream),
                 "cuMemcpyHtoDAsync", err) &&
           cuda_stream_wait(st, "cuMemcpyHtoDAsync", err);
}

bool cuda_download(cuda_stream *st, void *dst, cuda_ptr src, size_t bytes, tm_error *err)
{
    return enter(st->ctx, err) &&
           check(st->ctx, st->ctx->drv,
                 st->ctx->drv->MemcpyDtoHAsync(dst, (CUdeviceptr)src, bytes, st->stream),
                 "cuMemcpyDtoHAsync", err) &&
           cuda_stream_wait(st, "cuMemcpyDtoHAsync", err);
}

bool cuda_stream_wait(cuda_stream *st, const char *what, tm_error *err)
{
    return enter(st->ctx, err) &&
           check(st->ctx, st->ctx->drv, st->ctx->drv->StreamSynchronize(st->stream), what, err);
}

/* ---- events ------------------------------------------------------------------------ */

struct cuda_event {
    cuda_context *ctx;
    CUevent event;
};

bool cuda_event_create(cuda_context *ctx, cuda_event **evp, tm_error *err)
{
    *evp = NULL;
    cuda_event *ev = calloc(1, sizeof *ev);
    if (!ev) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    ev->ctx = ctx;
    /* No timing: the cheapest event, and none of its clock reads. */
    if (!enter(ctx, err) ||
        !check(ctx, ctx->drv, ctx->drv->EventCreate(&ev->event, CU_EVENT_DISABLE_TIMING),
               "cuEventCreate", err)) {
        free(ev);
        return false;
    }
    *evp = ev;
    return true;
}

void cuda_event_destroy(cuda_event *ev)
{
    if (!ev)
        return;
    if (enter(ev->ctx, NULL))
        ev->ctx->drv->EventDestroy(ev->event);
    free(ev);
}

bool cuda_event_record(cuda_event *ev, cuda_stream *st, tm_error *err)
{
    return enter(ev->ctx, err) &&
           check(ev->ctx, ev->ctx->drv, ev->ctx->drv->EventRecord(ev->event, st->stream),
                 "cuEventRecord", err);
}

bool cuda_event_done(cuda_event *ev, bool *done, tm_error *err)
{
    *done = false;
    if (!enter(ev->ctx, err))
        return false;
    *done = ev->ctx->drv->EventQuery(ev->event) != CUDA_ERROR_NOT_READY;
    return true; /* a fault is reported by cuda_event_wait */
}

bool cuda_event_wait(cuda_event *ev, const char *what, tm_error *err)
{
    return enter(ev->ctx, err) &&
           check(ev->ctx, ev->ctx->drv, ev->ctx->drv->EventSynchronize(ev->event), what, err);
}

bool cuda_stream_wait_event(cuda_stream *st, cuda_event *ev, tm_error *err)
{
    return enter(st->ctx, err) &&
           check(st->ctx, st->ctx->drv, st->ctx->drv->StreamWaitEvent(st->stream, ev->event, 0),
                 "cuStreamWaitEvent", err);
}

bool cuda_occupancy(cuda_module *mod, const char *name, unsigned block, size_t shared_bytes,
                    int *blocks_per_sm, tm_error *err)
{
    CUfunction f;
    *blocks_per_sm = 0;
    if (!function_prepare(mod, name, shared_bytes, &f, err))
        return false;
    char what[160];
    snprintf(what, sizeof what, "cuOccupancyMaxActiveBlocksPerMultiprocessor(%s)", name);
    return check(mod->ctx, mod->ctx->drv,
                 mod->ctx->drv->OccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, f,
                                                                          (int)block, shared_bytes),
                 what, err);
}
