# What a run needs against what the machine has (issue 11): the estimate
# (runtime/engine/footprint.c), the machine and the policy
# (driver/machine.c, resources.c) and `tmcml run` under
# TMCML_MEMORY_LIMIT and TMCML_DISK_LIMIT.  No GPU, a few seconds.
tmcml_test(test_footprint engine test_footprint.c)
add_test(NAME footprint COMMAND test_footprint)
tmcml_test(test_resources driver test_resources.c)
add_test(NAME resources COMMAND test_resources)
add_test(NAME resources_cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_resources_cli.sh
  $<TARGET_FILE:tmcml> ${TMCML_TEST_DATA})
