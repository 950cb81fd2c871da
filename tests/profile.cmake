# The profile store (tuner/profile*.c) and `tmcml profiles` (cli/profiles_command.c).
# No GPU: every test runs in CI.
tmcml_test(test_profile tuner test_profile.c)
add_test(NAME profile COMMAND test_profile)
add_test(NAME profiles_cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_profiles_cli.sh
  $<TARGET_FILE:tmcml> ${PROJECT_SOURCE_DIR}/profiles)
set_tests_properties(profile profiles_cli PROPERTIES LABELS "profile")

# The profiles shipped in profiles/ were tuned by this generator (templates and
# NVRTC options): a change to either needs a retune on the GPUs they are for
# before it lands (CONTRIBUTING.md, "Adding a kernel knob").
add_test(NAME shipped_profiles COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_shipped_profiles.sh
  $<TARGET_FILE:tmcml> ${PROJECT_SOURCE_DIR}/profiles)
set_tests_properties(shipped_profiles PROPERTIES LABELS "profile" SKIP_RETURN_CODE 77)

# Where the shipped profiles are found (tuner/profile_path.c): the program and
# a library holding the tuner (as libtmcml.so does), run from the build tree
# and from copies in temporary prefixes, moved as a whole.
add_library(shipped_dir_probe MODULE shipped_dir_probe.c)
target_link_libraries(shipped_dir_probe PRIVATE tmcml_tuner)
tmcml_test(test_shipped_dir tuner test_shipped_dir.c)
target_link_libraries(test_shipped_dir PRIVATE ${CMAKE_DL_LIBS})
add_test(NAME shipped_dir COMMAND test_shipped_dir $<TARGET_FILE:shipped_dir_probe>)
set_tests_properties(shipped_dir PROPERTIES LABELS "profile")
