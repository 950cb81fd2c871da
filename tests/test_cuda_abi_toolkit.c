/* The toolkit's values of the names in cuda_abi_names.h (test_cuda_abi.c
 * compares them with ours, which are in the other translation unit: the two
 * declarations cannot meet in one). */
#include <cuda.h>
#include <nvrtc.h>

#include "cuda_abi_names.h"

const long long toolkit_abi_values[] = {CUDA_ABI_VALUES(CUDA_ABI_VALUE)};
