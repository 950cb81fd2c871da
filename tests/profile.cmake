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
