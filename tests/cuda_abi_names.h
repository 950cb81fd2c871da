/* Every name of runtime/engine/cuda_abi.h and gen/nvrtc_abi.h, for
 * tests/test_cuda_abi.c: X(value) per constant and per type size. */
// One name a line.
#define CUDA_ABI_VALUES(X)                                                                         \
    X(CUDA_SUCCESS)                                                                                \
    X(CUDA_ERROR_OUT_OF_MEMORY)                                                                    \
    X(CUDA_ERROR_STUB_LIBRARY)                                                                     \
    X(CUDA_ERROR_NO_DEVICE)                                                                        \
    X(CUDA_ERROR_INVALID_IMAGE)                                                                    \
    X(CUDA_ERROR_NO_BINARY_FOR_GPU)                                                                \
    X(CUDA_ERROR_ECC_UNCORRECTABLE)                                                                \
    X(CUDA_ERROR_UNSUPPORTED_PTX_VERSION)                                                          \
    X(CUDA_ERROR_NOT_READY)                                                                        \
    X(CUDA_ERROR_ILLEGAL_ADDRESS)                                                                  \
    X(CUDA_ERROR_LAUNCH_TIMEOUT)                                                                   \
    X(CUDA_ERROR_ASSERT)                                                                           \
    X(CUDA_ERROR_HARDWARE_STACK_ERROR)                                                             \
    X(CUDA_ERROR_ILLEGAL_INSTRUCTION)                                                              \
    X(CUDA_ERROR_MISALIGNED_ADDRESS)                                                               \
    X(CUDA_ERROR_INVALID_ADDRESS_SPACE)                                                            \
    X(CUDA_ERROR_INVALID_PC)                                                                       \
    X(CUDA_ERROR_LAUNCH_FAILED)                                                                    \
    X(CU_DEVICE_ATTRIBUTE_CLOCK_RATE)                                                              \
    X(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)                                                    \
    X(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)                                          \
    X(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)                                                \
    X(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)                                                \
    X(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)                                    \
    X(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR)                                        \
    X(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)                                       \
    X(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID)                                                              \
    X(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID)                                                           \
    X(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID)                                                           \
    X(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)                                                         \
    X(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)                                             \
    X(CU_STREAM_NON_BLOCKING)                                                                      \
    X(CU_EVENT_DISABLE_TIMING)                                                                     \
    X(CU_GET_PROC_ADDRESS_LEGACY_STREAM)                                                           \
    X(CU_GET_PROC_ADDRESS_SUCCESS)                                                                 \
    X(CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND)                                                        \
    X(NVRTC_SUCCESS)                                                                               \
    X(NVRTC_ERROR_INVALID_OPTION)                                                                  \
    X(sizeof(CUresult))                                                                            \
    X(sizeof(CUdevice))                                                                            \
    X(sizeof(CUdeviceptr))                                                                         \
    X(sizeof(cuuint64_t))                                                                          \
    X(sizeof(CUcontext))                                                                           \
    X(sizeof(CUmodule))                                                                            \
    X(sizeof(CUfunction))                                                                          \
    X(sizeof(CUstream))                                                                            \
    X(sizeof(CUevent))                                                                             \
    X(sizeof(CUdevice_attribute))                                                                  \
    X(sizeof(CUfunction_attribute))                                                                \
    X(sizeof(CUdriverProcAddressQueryResult))                                                      \
    X(sizeof(nvrtcResult))                                                                         \
    X(sizeof(nvrtcProgram))

#define CUDA_ABI_VALUE(v) (long long)(v),
#define CUDA_ABI_NAME(v)  #v,
