/* The head of the tests' small kernel of the generated kind (test_compile.c,
 * test_cuda.c), as CUDA source text: thread i of n seeds photon i's MWC
 * stream from the table of multipliers and the seed, as the engines do.
 * After it, each test writes out[i] its own way and closes the brace; the
 * source includes rng_mwc.h (handed to NVRTC by name) before it. */
#ifndef TMCML_TESTS_MWC_KERNEL_H
#define TMCML_TESTS_MWC_KERNEL_H

#define MWC_KERNEL_HEAD                                                                            \
    "extern \"C\" __global__ void tmcml_test_kernel(const unsigned int *multipliers,\n"            \
    "                                              unsigned long long seed,\n"                     \
    "                                              unsigned long long *out, int n)\n"              \
    "{\n"                                                                                          \
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"                                         \
    "    if (i >= n)\n"                                                                            \
    "        return;\n"                                                                            \
    "    mwc_state s;\n"                                                                           \
    "    mwc_seed(&s, seed, (unsigned long long)i, multipliers);\n"

#endif
