# Tests of api/ (libtmcml through tmcml.h alone, linked against the
# shared library) and of the C example that CI builds and runs.
add_executable(test_api test_api.c)
target_link_libraries(test_api PRIVATE libtmcml tmcml_flags Threads::Threads)
add_test(NAME api COMMAND test_api $<TARGET_FILE:tmcml> ${PROJECT_SOURCE_DIR}/examples)
add_test(NAME gpu_api COMMAND test_api gpu)
tmcml_gpu_tests(gpu_api)
add_executable(test_api_sets test_api_sets.c)
target_link_libraries(test_api_sets PRIVATE libtmcml tmcml_flags)
add_test(NAME api_sets COMMAND test_api_sets)
# Path lengths through the public header (tests/test_api_paths.c).
add_executable(test_api_paths test_api_paths.c)
target_link_libraries(test_api_paths PRIVATE libtmcml tmcml_flags)
add_test(NAME api_paths COMMAND test_api_paths)
add_test(NAME gpu_api_sets COMMAND test_api_sets gpu)
tmcml_gpu_tests(gpu_api_sets)
# Sources through the public header (tests/test_api_sources.c); the GPU's
# batch kernel with each run's source: label gpu.
add_executable(test_api_sources test_api_sources.c)
target_link_libraries(test_api_sources PRIVATE libtmcml tmcml_flags)
add_test(NAME api_sources COMMAND test_api_sources)
add_test(NAME gpu_api_sources COMMAND test_api_sources gpu)
tmcml_gpu_tests(gpu_api_sources)

# A long run kept in a checkpoint file (tests/test_api_checkpoint.c); on the
# GPU: label gpu.
add_executable(test_api_checkpoint test_api_checkpoint.c)
target_link_libraries(test_api_checkpoint PRIVATE libtmcml tmcml_flags)
add_test(NAME api_checkpoint COMMAND test_api_checkpoint)
add_test(NAME gpu_api_checkpoint COMMAND test_api_checkpoint gpu)
tmcml_gpu_tests(gpu_api_checkpoint)

# tmcml_session_delete while other threads' calls are on the session (a use
# after free that the sanitizer build reports).  Linked with the api room, not
# the shared library: it reads the session's count of calls (api.h).
tmcml_test(test_api_threads api test_api_threads.c)
add_test(NAME api_threads COMMAND test_api_threads)
set_tests_properties(api_threads PROPERTIES TIMEOUT 120)

# The library exports tmcml_* alone.
add_test(NAME api_symbols COMMAND ${CMAKE_COMMAND} -DLIBRARY=$<TARGET_FILE:libtmcml>
  -P ${CMAKE_CURRENT_SOURCE_DIR}/api_symbols.cmake)

# examples/library_example.c: a loop of runs in one session (the ASan build's
# leak checker sees every run's allocations).
add_executable(library_example ${PROJECT_SOURCE_DIR}/examples/library_example.c)
target_link_libraries(library_example PRIVATE libtmcml tmcml_flags)
add_test(NAME library_example COMMAND library_example 12 cpu
  ${CMAKE_CURRENT_BINARY_DIR}/library_example.mco)
add_test(NAME gpu_library_example COMMAND library_example 100 gpu)
tmcml_gpu_tests(gpu_library_example)

# Numbers in files whatever the host's locale (base/c_locale.c): a
# German locale made in the build tree (tests/make_locale.sh) for LOCPATH;
# python/CMakeLists.txt's python_locale uses it too.
add_test(NAME locale_setup COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/make_locale.sh
  ${CMAKE_BINARY_DIR}/locale)
set_tests_properties(locale_setup PROPERTIES FIXTURES_SETUP de_locale)
tmcml_test(test_locale api test_locale.c)
add_test(NAME locale COMMAND test_locale)
set_tests_properties(locale PROPERTIES FIXTURES_REQUIRED de_locale SKIP_RETURN_CODE 77
  ENVIRONMENT "LOCPATH=${CMAKE_BINARY_DIR}/locale")
# Time bins and the fiber detector through the public header (tests/test_api_time.c).
add_executable(test_api_time test_api_time.c)
target_link_libraries(test_api_time PRIVATE libtmcml tmcml_flags)
add_test(NAME api_time COMMAND test_api_time)
# Several fiber detectors through the public header (tests/test_api_fibers.c).
add_executable(test_api_fibers test_api_fibers.c)
target_link_libraries(test_api_fibers PRIVATE libtmcml tmcml_flags m)
add_test(NAME api_fibers COMMAND test_api_fibers)
# Spatial frequencies through the public header (tests/test_api_fx.c).
add_executable(test_api_fx test_api_fx.c)
target_link_libraries(test_api_fx PRIVATE libtmcml tmcml_flags)
add_test(NAME api_fx COMMAND test_api_fx)

# Modulation frequencies through the public header (tests/test_api_mod.c).
add_executable(test_api_mod test_api_mod.c)
target_link_libraries(test_api_mod PRIVATE libtmcml tmcml_flags)
add_test(NAME api_mod COMMAND test_api_mod)
# The Cartesian grid and the oblique beam through the public header
# (tests/test_api_xy.c).
add_executable(test_api_xy test_api_xy.c)
target_link_libraries(test_api_xy PRIVATE libtmcml tmcml_flags)
add_test(NAME api_xy COMMAND test_api_xy)

# Lookup tables through the library (tests/test_api_lut.c): `tmcml lut`'s
# .npz bit for bit, stopped and continued, refusals; on the GPU: label gpu.
add_executable(test_api_lut test_api_lut.c)
target_link_libraries(test_api_lut PRIVATE libtmcml tmcml_flags m)
foreach(case cli resume refused)
  add_test(NAME api_lut_${case} COMMAND test_api_lut ${case} $<TARGET_FILE:tmcml>)
endforeach()
add_test(NAME gpu_api_lut COMMAND test_api_lut gpu $<TARGET_FILE:tmcml>)
tmcml_gpu_tests(gpu_api_lut)

# Standard errors through the public header (tests/test_api_stderr.c): the
# results bit for bit those without, the errors those of `tmcml run --stderr`,
# of a problem alone in a batch, of every set, of a checkpointed run; on the
# GPU: label gpu.
add_executable(test_api_stderr test_api_stderr.c)
target_link_libraries(test_api_stderr PRIVATE libtmcml tmcml_flags m)
foreach(case identity cli batch sets checkpointed)
  add_test(NAME api_stderr_${case} COMMAND test_api_stderr ${case} $<TARGET_FILE:tmcml>)
endforeach()
add_test(NAME gpu_api_stderr COMMAND test_api_stderr gpu)
tmcml_gpu_tests(gpu_api_stderr)

# Runs that stop at a precision through the public header
# (tests/test_api_precision.c): `tmcml run --precision`'s photons, arrays and
# errors, each problem of a batch stopping on its own, a capped run, a
# cancelled and resumed checkpointed run, every bad argument.
add_executable(test_api_precision test_api_precision.c)
target_link_libraries(test_api_precision PRIVATE libtmcml tmcml_flags m)
foreach(case cli batch capped checkpointed arguments sets)
  add_test(NAME api_precision_${case} COMMAND test_api_precision ${case} $<TARGET_FILE:tmcml>)
endforeach()

# A lookup table's errors and a table of one precision through the public
# header (tests/test_api_lut_errors.c): each point stopping on its own, bit
# for bit its own precision run; the values of a table without a precision
# those of tmcml_lut; a cancelled table resumed; bad fields; the command's
# .npz.
add_executable(test_api_lut_errors test_api_lut_errors.c)
target_link_libraries(test_api_lut_errors PRIVATE libtmcml tmcml_flags m)
foreach(case precision uniform resume refused cli)
  add_test(NAME api_lut_errors_${case} COMMAND test_api_lut_errors ${case} $<TARGET_FILE:tmcml>)
endforeach()
add_test(NAME gpu_api_lut_errors COMMAND test_api_lut_errors gpu)
tmcml_gpu_tests(gpu_api_lut_errors)

# A table of R(fx), an SFDI table, through the public header
# (tests/test_api_lut_fx.c): each point its own run's with the frequencies
# for both strategies, the rest the table's without them, the command's
# .npz and a point's `tmcml run`; stopped and continued; refusals; on the
# GPU (label gpu): each point its own GPU run's.
add_executable(test_api_lut_fx test_api_lut_fx.c)
target_link_libraries(test_api_lut_fx PRIVATE libtmcml tmcml_flags m)
add_test(NAME api_lut_fx_points COMMAND test_api_lut_fx points $<TARGET_FILE:tmcml>)
foreach(case resume refused)
  add_test(NAME api_lut_fx_${case} COMMAND test_api_lut_fx ${case})
endforeach()
add_test(NAME gpu_api_lut_fx COMMAND test_api_lut_fx gpu)
tmcml_gpu_tests(gpu_api_lut_fx)
# The derivatives of the escapes (tests/test_jacobian.c): against central
# differences of independent runs, with planted wrong estimators that must fail.
add_executable(test_jacobian test_jacobian.c stats.c)
target_link_libraries(test_jacobian PRIVATE libtmcml tmcml_flags m)
foreach(case differences time skin identity refused)
  add_test(NAME jacobian_${case} COMMAND test_jacobian ${case})
  set_tests_properties(jacobian_${case} PROPERTIES LABELS "validation")
  if(TMCML_SANITIZE) # the same code on a tenth of the photons
    set_tests_properties(jacobian_${case} PROPERTIES ENVIRONMENT "TMCML_VALIDATION_SCALE=0.1")
  endif()
endforeach()
# Optics sets (tests/test_optics_sets.c): each set against an independent run
# of its own properties; the effective sample size flags a far set.
add_executable(test_optics_sets test_optics_sets.c stats.c)
target_link_libraries(test_optics_sets PRIVATE libtmcml tmcml_flags m)
foreach(case agree flagged refused)
  add_test(NAME optics_sets_${case} COMMAND test_optics_sets ${case})
  set_tests_properties(optics_sets_${case} PROPERTIES LABELS "validation")
  if(TMCML_SANITIZE)
    set_tests_properties(optics_sets_${case} PROPERTIES ENVIRONMENT "TMCML_VALIDATION_SCALE=0.1")
  endif()
endforeach()
