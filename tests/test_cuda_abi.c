/* Our declarations of the CUDA driver and NVRTC APIs (runtime/engine/
 * cuda_abi.h, gen/nvrtc_abi.h) against the installed toolkit's headers:
 * every constant and every type size equal.  Built only where a toolkit is
 * installed (tests/gpu_infra.cmake). */
#include <stdio.h>

#include "check.h"
#include "cuda_abi.h"
#include "cuda_abi_names.h"
#include "nvrtc_abi.h"

extern const long long toolkit_abi_values[];

int main(void)
{
    static const long long ours[] = {CUDA_ABI_VALUES(CUDA_ABI_VALUE)};
    static const char *const names[] = {CUDA_ABI_VALUES(CUDA_ABI_NAME)};
    for (size_t i = 0; i < sizeof ours / sizeof ours[0]; i++)
        CHECK_MSG(ours[i] == toolkit_abi_values[i], "%s: ours %lld, the toolkit's %lld", names[i],
                  ours[i], toolkit_abi_values[i]);
    printf("%zu names compared with the toolkit's headers\n", sizeof ours / sizeof ours[0]);
    return check_summary("cuda_abi");
}
