# The CPU engine: contracts, statistical validation, the command line.
tmcml_test(test_cpu engine test_cpu.c)
add_test(NAME cpu_determinism COMMAND test_cpu)

tmcml_test(test_validation api test_validation.c stats.c)
foreach(case vanhulst giovanelli example skin glass contrast index)
  add_test(NAME validation_${case} COMMAND test_validation ${case})
  set_tests_properties(validation_${case} PROPERTIES LABELS "validation")
  if(TMCML_SANITIZE)
    # The sanitizer build checks the same code with fewer photons: the
    # tolerances follow the variance, so they stay valid.
    set_tests_properties(validation_${case} PROPERTIES ENVIRONMENT "TMCML_VALIDATION_SCALE=0.1")
  endif()
endforeach()

# Absorption sets (docs/physics.md): against Beer-Lambert and independent runs.
# The GPU kernel's sets (escapes, -A) the same way: label gpu.
tmcml_test(test_sets api test_sets.c stats.c)
foreach(case beer_lambert two_layers three_layers determinism)
  add_test(NAME sets_${case} COMMAND test_sets ${case})
  set_tests_properties(sets_${case} PROPERTIES LABELS "validation")
  add_test(NAME gpu_sets_${case} COMMAND test_sets ${case} gpu)
  add_test(NAME gpu_sets_absorb_${case} COMMAND test_sets ${case} gpu_absorb)
  tmcml_gpu_tests(gpu_sets_${case} gpu_sets_absorb_${case})
endforeach()
# The sets' kernel in a block that fits the device's shared memory (issue 42):
# the planner on a synthetic H200, every set count and layer count; the
# chosen kernels compile (nvrtc); 64 sets with absorption on skin on a GPU.
tmcml_test(test_sets_plan api test_sets_plan.c)
add_test(NAME sets_plan COMMAND test_sets_plan)
set_tests_properties(sets_plan PROPERTIES LABELS "tuner")
add_test(NAME sets_plan_compile COMMAND test_sets_plan compile)
set_tests_properties(sets_plan_compile PROPERTIES SKIP_RETURN_CODE 77 LABELS nvrtc)
add_test(NAME gpu_sets_plan COMMAND test_sets_plan gpu)
tmcml_gpu_tests(gpu_sets_plan)
# Partial path lengths (docs/outputs.md): ballistic, the derivative identity.
# The GPU kernel's (with sets, -A) the same way, and against the CPU's: label gpu.
tmcml_test(test_paths api test_paths.c stats.c)
foreach(case ballistic derivative two_layers plain determinism)
  add_test(NAME paths_${case} COMMAND test_paths ${case})
  set_tests_properties(paths_${case} PROPERTIES LABELS "validation")
endforeach()
foreach(case ballistic derivative two_layers determinism engines)
  add_test(NAME gpu_paths_${case} COMMAND test_paths ${case} gpu)
  tmcml_gpu_tests(gpu_paths_${case})
endforeach()
# Time-resolved escapes and the fiber detector (docs/outputs.md, "Time-resolved").
tmcml_test(test_time engine test_time.c stats.c)
foreach(case sums decay mean_time fiber)
  add_test(NAME time_${case} COMMAND test_time ${case})
  set_tests_properties(time_${case} PROPERTIES LABELS "validation")
endforeach()
# Several fiber detectors in one run, each as if alone (tests/test_fibers.c).
tmcml_test(test_fibers api test_fibers.c)
foreach(case alone batch)
  add_test(NAME fibers_${case} COMMAND test_fibers ${case})
endforeach()
add_test(NAME gpu_fibers_alone COMMAND test_fibers gpu_alone)
tmcml_gpu_tests(gpu_fibers_alone)
# Spatial frequencies, R(fx) and T(fx) (docs/physics.md, "Spatial frequencies").
tmcml_test(test_fx engine test_fx.c stats.c)
foreach(case zero hankel diffusion)
  add_test(NAME fx_${case} COMMAND test_fx ${case})
  set_tests_properties(fx_${case} PROPERTIES LABELS "validation")
endforeach()
# The frequency domain on the CPU engine (docs/physics.md, "Frequency
# domain"): identity, the Fourier transform of the same run's time bins,
# diffusion theory.
tmcml_test(test_mod engine test_mod.c stats.c)
foreach(case identity fourier diffusion)
  add_test(NAME mod_${case} COMMAND test_mod ${case})
  set_tests_properties(mod_${case} PROPERTIES LABELS "validation")
endforeach()
# Spatial frequencies on the GPU (templates/fx.cu): against the CPU
# engine's, across variants, launches and calls.
tmcml_test(test_fx_gpu api test_fx_gpu.c stats.c)
foreach(case agree identity)
  add_test(NAME gpu_fx_${case} COMMAND test_fx_gpu ${case})
  tmcml_gpu_tests(gpu_fx_${case})
endforeach()
# Modulation frequencies on the GPU (templates/timed.cu): against the CPU
# engine's, across variants, launches and calls.
tmcml_test(test_mod_gpu api test_mod_gpu.c stats.c)
foreach(case agree identity)
  add_test(NAME gpu_mod_${case} COMMAND test_mod_gpu ${case})
  tmcml_gpu_tests(gpu_mod_${case})
endforeach()
# The oblique beam and the Cartesian grid on the GPU (templates/source.cu,
# templates/xy.cu): against the CPU engine's, across variants, launches and
# calls, and a beam at 0 degrees against the pencil beam.
tmcml_test(test_xy_gpu api test_xy_gpu.c stats.c)
foreach(case agree identity normal)
  add_test(NAME gpu_xy_${case} COMMAND test_xy_gpu ${case})
  tmcml_gpu_tests(gpu_xy_${case})
endforeach()
tmcml_test(test_time_gpu api test_time_gpu.c stats.c)
foreach(case agree identity)
  add_test(NAME gpu_time_${case} COMMAND test_time_gpu ${case})
  tmcml_gpu_tests(gpu_time_${case})
endforeach()
# The derivatives on the GPU (templates/sets.cu): against the CPU engine's,
# across variants, launches and calls.
tmcml_test(test_jacobian_gpu api test_jacobian_gpu.c stats.c)
foreach(case agree optics identity library)
  add_test(NAME gpu_jacobian_${case} COMMAND test_jacobian_gpu ${case})
  tmcml_gpu_tests(gpu_jacobian_${case})
endforeach()
# Time bins and fiber detectors in the sets' GPU kernel, with derivatives
# (templates/sets.cu): against the CPU engine's, the run's own kernel's,
# across variants, launches and calls, and through the library.
tmcml_test(test_timed_sets_gpu api test_timed_sets_gpu.c stats.c)
foreach(case agree identity library)
  add_test(NAME gpu_timed_sets_${case} COMMAND test_timed_sets_gpu ${case})
  tmcml_gpu_tests(gpu_timed_sets_${case})
endforeach()
# Optics sets on the GPU (templates/sets.cu): against the CPU engine's, across
# variants, launches and calls, and with absorption (a padded table).
tmcml_test(test_optics_sets_gpu api test_optics_sets_gpu.c stats.c)
foreach(case agree identity library absorb)
  add_test(NAME gpu_optics_sets_${case} COMMAND test_optics_sets_gpu ${case})
  tmcml_gpu_tests(gpu_optics_sets_${case})
endforeach()
# Both kernels on two engines of one GPU and across a stop and resume: one
# GPU's uninterrupted outputs bit for bit.
add_test(NAME gpu_sets_identity COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_sets_gpu_identity.sh
  $<TARGET_FILE:tmcml> ${PROJECT_SOURCE_DIR}/examples)
tmcml_gpu_tests(gpu_sets_identity)
add_test(NAME time_cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_time_cli.sh
  $<TARGET_FILE:tmcml> ${PROJECT_SOURCE_DIR}/examples)
add_test(NAME detectors_cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_detectors_cli.sh
  $<TARGET_FILE:tmcml> ${PROJECT_SOURCE_DIR}/examples)
add_test(NAME fx_cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_fx_cli.sh
  $<TARGET_FILE:tmcml> ${PROJECT_SOURCE_DIR}/examples)
add_test(NAME mod_cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_mod_cli.sh
  $<TARGET_FILE:tmcml> ${PROJECT_SOURCE_DIR}/examples)
add_test(NAME xy_cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_xy_cli.sh
  $<TARGET_FILE:tmcml> ${PROJECT_SOURCE_DIR}/examples)
add_test(NAME paths_cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_paths_cli.sh
  $<TARGET_FILE:tmcml> ${PROJECT_SOURCE_DIR}/examples)
add_test(NAME jacobian_cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_jacobian_cli.sh
  $<TARGET_FILE:tmcml> ${PROJECT_SOURCE_DIR}/examples)
add_test(NAME optics_sets_cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_optics_sets_cli.sh
  $<TARGET_FILE:tmcml> ${PROJECT_SOURCE_DIR}/examples)
add_test(NAME mua_sets_cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_mua_sets_cli.sh
  $<TARGET_FILE:tmcml> ${PROJECT_SOURCE_DIR}/examples)
add_test(NAME stop_photon COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_stop_photon.sh
  $<TARGET_FILE:tmcml>)
add_test(NAME sets_resume COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_sets_resume.sh
  $<TARGET_FILE:tmcml> ${PROJECT_SOURCE_DIR}/examples)
# Standard errors across a stop and --resume: a run's, a batch's, sets'.
add_test(NAME stderr_resume COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_stderr_resume.sh
  $<TARGET_FILE:tmcml> ${PROJECT_SOURCE_DIR}/examples)
# tmcml lut (docs/lut.md): its files against the library's results of the
# same points, bit for bit; sets against runs; its command line.
tmcml_test(test_lut cli test_lut.c stats.c)
foreach(case files agree)
  add_test(NAME lut_${case} COMMAND test_lut ${case})
endforeach()
add_test(NAME lut_cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_lut_cli.sh $<TARGET_FILE:tmcml>)
# Its stops and --resume under real signals (byte-identical .csv and .npz).
add_test(NAME lut_resume COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_lut_resume.sh
  $<TARGET_FILE:tmcml>)
# --spatial-frequencies: its columns and members, stopped and resumed, refused.
add_test(NAME lut_fx_cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_lut_fx_cli.sh
  $<TARGET_FILE:tmcml>)

add_test(NAME cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_cli.sh $<TARGET_FILE:tmcml>
  ${TMCML_TEST_DATA})
# Every option a parser knows is in its command's --help and the man page.
add_test(NAME help_options COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_help_options.sh
  $<TARGET_FILE:tmcml> ${PROJECT_SOURCE_DIR}/cli ${PROJECT_BINARY_DIR}/tmcml.1)

tmcml_test(test_quantization engine test_quantization.c)
add_test(NAME quantization COMMAND test_quantization)

# Photons held in a glass layer (issue 42): stopped at once, the tallies of
# stepping them to the limit but the steps; the default limit in few steps.
tmcml_test(test_glass_held engine test_glass_held.c)
foreach(case slab sandwich sets limit)
  add_test(NAME glass_held_${case} COMMAND test_glass_held ${case})
endforeach()

# A batch kernel's run tiles and edge bins, as planned on the host.
tmcml_test(test_launch_plan engine test_launch_plan.c)
add_test(NAME launch_plan COMMAND test_launch_plan)

# The GPU engine (label gpu: run on a GPU machine; exit 77 = skipped without one).
tmcml_test(test_gpu api test_gpu.c)
foreach(mode identity over2e32 fault layers64)
  add_test(NAME gpu_${mode} COMMAND test_gpu ${mode})
  tmcml_gpu_tests(gpu_${mode})
endforeach()
foreach(case vanhulst giovanelli example skin glass contrast index)
  add_test(NAME gpu_validation_${case} COMMAND test_validation ${case} gpu)
  tmcml_gpu_tests(gpu_validation_${case})
  if(TMCML_SANITIZE) # the sanitizer build checks the host side on fewer photons
    set_tests_properties(gpu_validation_${case} PROPERTIES
      ENVIRONMENT "${TMCML_GPU_TEST_ENV};TMCML_VALIDATION_SCALE=0.1")
  endif()
endforeach()

# Every template family compiles with NVRTC to sm_90 without spilling (no GPU needed).
tmcml_test(test_kernels tuner test_kernels.c)
add_test(NAME kernels COMMAND test_kernels)
set_tests_properties(kernels PROPERTIES SKIP_RETURN_CODE 77 LABELS nvrtc)

tmcml_test(test_cpu_math engine test_cpu_math.c)
add_test(NAME cpu_math COMMAND test_cpu_math)
# The J0 of the spatial frequencies (runtime/engine/cpu_bessel.c).
tmcml_test(test_bessel engine test_bessel.c)
add_test(NAME bessel COMMAND test_bessel)

# Numerically hostile inputs the reader accepts: trapped photons, g -> 0.
tmcml_test(test_hostile api test_hostile.c)
add_test(NAME hostile COMMAND test_hostile cpu)
add_test(NAME gpu_hostile COMMAND test_hostile gpu)
tmcml_gpu_tests(gpu_hostile)

# Checkpoint and resume under real signals (bit-identical .mco), both engines.
add_test(NAME checkpoint COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_checkpoint.sh
  $<TARGET_FILE:tmcml> ${TMCML_TEST_DATA} cpu)
add_test(NAME gpu_checkpoint COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_checkpoint.sh
  $<TARGET_FILE:tmcml> ${TMCML_TEST_DATA} gpu)
add_test(NAME gpu_checkpoint_pool COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_checkpoint.sh
  $<TARGET_FILE:tmcml> ${TMCML_TEST_DATA} gpus)
# Several GPUs (or, with one, two engines on it): bit-identical to one GPU.
add_test(NAME gpu_multi COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_multi_gpu.sh
  $<TARGET_FILE:tmcml> ${PROJECT_SOURCE_DIR}/examples)
tmcml_gpu_tests(gpu_checkpoint gpu_checkpoint_pool gpu_multi)
tmcml_test(test_gpu_pool engine test_gpu_pool.c)
add_test(NAME gpu_pool COMMAND test_gpu_pool)
tmcml_test(test_resume driver test_resume.c)
add_test(NAME resume COMMAND test_resume)
# Which runs of a file share a batch: one layer count and grid.
tmcml_test(test_batch_groups driver test_batch_groups.c)
add_test(NAME batch_groups COMMAND test_batch_groups)
# One writer per output (issue 21): the lock, and runs sharing an output
# directory (the lock, the .mco and JSON as one unit, --resume's checks).
tmcml_test(test_run_lock driver test_run_lock.c)
add_test(NAME run_lock COMMAND test_run_lock)
# Only the GPUs asked for made visible to the driver (cuInit's cost is per GPU).
tmcml_test(test_gpu_view driver test_gpu_view.c)
add_test(NAME gpu_view COMMAND test_gpu_view)
# One hardware queue a CUDA context for the command line, unless the user says.
tmcml_test(test_driver_queues driver test_driver_queues.c)
add_test(NAME driver_queues COMMAND test_driver_queues)
add_test(NAME runs COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_runs.sh $<TARGET_FILE:tmcml>
  ${TMCML_TEST_DATA})

# Several processes through MPI (CPU engine): bit-identical to one process.
add_test(NAME mpi COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_mpi.sh $<TARGET_FILE:tmcml>
  ${TMCML_TEST_DATA})
set_tests_properties(mpi PROPERTIES LABELS mpi SKIP_RETURN_CODE 77)
if(TMCML_SANITIZE)
  # Open MPI keeps its allocations to the end of the process.
  set_tests_properties(mpi PROPERTIES ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
endif()

# Batches: the index space, and every run of a batch bit-identical to the run
# alone (CPU here; the batch kernel on a GPU).
tmcml_test(test_batch api test_batch.c)
foreach(mode index cpu)
  add_test(NAME batch_${mode} COMMAND test_batch ${mode})
endforeach()
add_test(NAME gpu_batch COMMAND test_batch gpu)
add_test(NAME gpu_batch_many COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_batch_many.sh
  $<TARGET_FILE:tmcml>)
tmcml_gpu_tests(gpu_batch_many)
add_test(NAME batch_fds COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_batch_fds.sh
  $<TARGET_FILE:tmcml>)
set_tests_properties(batch_fds PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME fd_budget COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_fd_budget.sh
  $<TARGET_FILE:tmcml>)
add_test(NAME gpu_batch_big COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_batch_big.sh
  $<TARGET_FILE:tmcml>)
tmcml_gpu_tests(gpu_batch_big)
tmcml_gpu_tests(gpu_batch)
# Sources (docs/physics.md, "Sources"): a direct beam against the
# convolution, a buried point against symmetry, conservation and transport
# theory, a fiber against the pencil.
# The GPU's sources against the CPU engine and across variants: label gpu.
tmcml_test(test_sources api test_sources.c stats.c)
foreach(case gaussian point_slab diffusion fiber determinism)
  add_test(NAME sources_${case} COMMAND test_sources ${case})
  set_tests_properties(sources_${case} PROPERTIES LABELS "validation")
endforeach()
add_test(NAME gpu_sources COMMAND test_sources gpu)
tmcml_gpu_tests(gpu_sources)
add_test(NAME sources_cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_sources_cli.sh
  $<TARGET_FILE:tmcml> ${PROJECT_SOURCE_DIR}/examples)

# Standard errors by batch means (tests/test_uncertainty.c): the groups
# change no tally; the errors are honest over independent runs.
tmcml_test(test_uncertainty driver test_uncertainty.c)
foreach(case identity coverage decision hole)
  add_test(NAME uncertainty_${case} COMMAND test_uncertainty ${case})
  set_tests_properties(uncertainty_${case} PROPERTIES LABELS "validation")
endforeach()
add_test(NAME stderr COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_stderr.sh $<TARGET_FILE:tmcml>
  ${PROJECT_SOURCE_DIR}/examples)
add_test(NAME precision COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_precision.sh
  $<TARGET_FILE:tmcml> ${PROJECT_SOURCE_DIR}/examples)
set_tests_properties(precision PROPERTIES LABELS "validation")
add_test(NAME gpu_stderr COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_stderr_gpu.sh
  $<TARGET_FILE:tmcml> ${PROJECT_SOURCE_DIR}/examples)
tmcml_gpu_tests(gpu_stderr)
# The oblique beam and the Cartesian grid on the CPU engine (docs/physics.md,
# "Sources"; docs/outputs.md, "Cartesian grid"): the beam's start, the
# grid's identities, its rings against Rd_r, Wang & Jacques' shift.
tmcml_test(test_xy engine test_xy.c stats.c)
foreach(case start identity rings wang)
  add_test(NAME xy_${case} COMMAND test_xy ${case})
  set_tests_properties(xy_${case} PROPERTIES LABELS "validation")
endforeach()
