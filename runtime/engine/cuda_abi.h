/* The part of the CUDA driver API that tmcml calls, declared here rather
 * than taken from the toolkit's <cuda.h>: the library is loaded at run time
 * (runtime/engine/cuda_driver.c), so the GPU engine builds on any machine,
 * toolkit or not.  The names, types and values are the driver's ABI of CUDA
 * 12.0 and later, which NVIDIA keeps stable; tests/test_cuda_abi.c compares
 * every one with the toolkit's header wherever a toolkit is installed.
 * Include it instead of <cuda.h>, never beside it. */
#ifndef TMCML_CUDA_ABI_H
#define TMCML_CUDA_ABI_H

#include <stdint.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef uint64_t cuuint64_t;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef int CUdevice_attribute;
typedef int CUfunction_attribute;
typedef int CUdriverProcAddressQueryResult;

/* CUresult */
#define CUDA_SUCCESS                       0
#define CUDA_ERROR_OUT_OF_MEMORY           2
#define CUDA_ERROR_STUB_LIBRARY            34
#define CUDA_ERROR_NO_DEVICE               100
#define CUDA_ERROR_INVALID_IMAGE           200
#define CUDA_ERROR_NO_BINARY_FOR_GPU       209
#define CUDA_ERROR_ECC_UNCORRECTABLE       214
#define CUDA_ERROR_UNSUPPORTED_PTX_VERSION 222
#define CUDA_ERROR_NOT_READY               600
#define CUDA_ERROR_ILLEGAL_ADDRESS         700
#define CUDA_ERROR_LAUNCH_TIMEOUT          702
#define CUDA_ERROR_ASSERT                  710
#define CUDA_ERROR_HARDWARE_STACK_ERROR    714
#define CUDA_ERROR_ILLEGAL_INSTRUCTION     715
#define CUDA_ERROR_MISALIGNED_ADDRESS      716
#define CUDA_ERROR_INVALID_ADDRESS_SPACE   717
#define CUDA_ERROR_INVALID_PC              718
#define CUDA_ERROR_LAUNCH_FAILED           719

/* CUdevice_attribute */
#define CU_DEVICE_ATTRIBUTE_CLOCK_RATE                           13
#define CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT                 16
#define CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR       39
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR             75
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR             76
#define CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR 81
#define CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR     82
#define CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN    97
#define CU_DEVICE_ATTRIBUTE_PCI_BUS_ID                           33
#define CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID                        34
#define CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID                        50

/* CUfunction_attribute */
#define CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES             1
#define CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES 8

/* flags */
#define CU_STREAM_NON_BLOCKING            0x1
#define CU_EVENT_DISABLE_TIMING           0x2
#define CU_GET_PROC_ADDRESS_LEGACY_STREAM 0x1

/* CUdriverProcAddressQueryResult */
#define CU_GET_PROC_ADDRESS_SUCCESS          0
#define CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND 1

#endif
