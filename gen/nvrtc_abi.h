/* The part of NVRTC's API that tmcml calls, declared here rather than taken
 * from the toolkit's <nvrtc.h>: libnvrtc is loaded at run time
 * (gen/compile.c), so the generator builds on any machine.  Stable since
 * NVRTC 11; tests/test_cuda_abi.c compares it with the toolkit's header
 * wherever a toolkit is installed.  Include it instead of <nvrtc.h>. */
#ifndef TMCML_NVRTC_ABI_H
#define TMCML_NVRTC_ABI_H

typedef int nvrtcResult;
typedef struct _nvrtcProgram *nvrtcProgram;

#define NVRTC_SUCCESS              0
#define NVRTC_ERROR_INVALID_OPTION 5

#endif
