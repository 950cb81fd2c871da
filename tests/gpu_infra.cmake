# NVRTC + cubin cache (gen/compile.c) and the driver API (runtime/engine/cuda_driver.c).
# Exit code 77 = skipped (no NVRTC, no driver, or no GPU).

tmcml_test(test_compile gen test_compile.c)
add_test(NAME compile COMMAND test_compile)
add_test(NAME compile_no_nvrtc COMMAND test_compile no-nvrtc)
set_tests_properties(compile compile_no_nvrtc PROPERTIES SKIP_RETURN_CODE 77 LABELS "nvrtc"
  ENVIRONMENT "${TMCML_GPU_TEST_ENV}")

tmcml_test(test_cuda engine test_cuda.c)
add_test(NAME cuda_no_driver COMMAND test_cuda no-driver)
set_tests_properties(cuda_no_driver PROPERTIES SKIP_RETURN_CODE 77
  ENVIRONMENT "${TMCML_GPU_TEST_ENV}")
# The toolkit's stub libcuda exercises symbol resolution and cuInit's error
# path on machines without a driver.
find_file(TMCML_CUDA_STUB libcuda.so NO_DEFAULT_PATH
  PATHS "${CUDAToolkit_LIBRARY_DIR}/stubs" "${TMCML_CUDA_INCLUDE_DIR}/../lib64/stubs"
        "${TMCML_CUDA_INCLUDE_DIR}/../lib/stubs")
if(TMCML_CUDA_STUB)
  add_test(NAME cuda_stub COMMAND test_cuda stub "${TMCML_CUDA_STUB}")
  set_tests_properties(cuda_stub PROPERTIES SKIP_RETURN_CODE 77
    ENVIRONMENT "${TMCML_GPU_TEST_ENV}")
endif()
add_test(NAME gpu_cuda COMMAND test_cuda gpu)
set_tests_properties(gpu_cuda PROPERTIES SKIP_RETURN_CODE 77 LABELS "gpu"
  ENVIRONMENT "${TMCML_GPU_TEST_ENV}")

# A shared GPU: several processes at once, each with its own input, variant,
# seed and launch split, must each write their solo run's tallies bit for bit:
# about 24 s of GPU time per round, two rounds.  The sanitizer build checks
# the host side with a shorter round.
set(TMCML_STRESS_ARGS 24 2)
if(TMCML_SANITIZE)
  set(TMCML_STRESS_ARGS 8 1)
endif()
add_test(NAME gpu_stress COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_gpu_stress.sh
  $<TARGET_FILE:tmcml> ${PROJECT_SOURCE_DIR}/examples ${TMCML_STRESS_ARGS})
set_tests_properties(gpu_stress PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 900
  ENVIRONMENT "${TMCML_GPU_TEST_ENV}")

# compute-sanitizer (memcheck, racecheck, synccheck, initcheck) over small runs
# of several kernel variants: label sanitizer, run on a GPU machine as part of
# the GPU test protocol (CONTRIBUTING.md).  Not in the ASan build: the two
# sanitizers do not share a process.
if(NOT TMCML_SANITIZE)
  add_test(NAME gpu_sanitizer COMMAND sh ${PROJECT_SOURCE_DIR}/tools/gpu_sanitize.sh
    $<TARGET_FILE:tmcml> ${PROJECT_SOURCE_DIR}/examples)
  set_tests_properties(gpu_sanitizer PROPERTIES LABELS sanitizer SKIP_RETURN_CODE 77 TIMEOUT 1800)
endif()

# Our declarations of the driver and NVRTC APIs equal the toolkit's, where a
# toolkit is installed.
if(TMCML_TOOLKIT_HEADERS)
  add_executable(test_cuda_abi test_cuda_abi.c test_cuda_abi_toolkit.c)
  target_include_directories(test_cuda_abi PRIVATE ${PROJECT_SOURCE_DIR}/runtime/engine
    ${PROJECT_SOURCE_DIR}/gen)
  target_include_directories(test_cuda_abi BEFORE PRIVATE ${TMCML_CUDA_INCLUDE_DIR})
  set_source_files_properties(test_cuda_abi.c PROPERTIES COMPILE_OPTIONS "-Wall;-Wextra;-Werror")
  add_test(NAME cuda_abi COMMAND test_cuda_abi)
endif()
