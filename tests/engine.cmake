# The CPU engine: contracts, statistical validation, the command line.
tmcml_test(test_cpu test_cpu.c)
add_test(NAME cpu_determinism COMMAND test_cpu)

tmcml_test(test_validation test_validation.c stats.c)
foreach(case vanhulst giovanelli example skin glass)
  add_test(NAME validation_${case} COMMAND test_validation ${case})
  set_tests_properties(validation_${case} PROPERTIES LABELS "validation")
  if(TMCML_SANITIZE)
    # The sanitizer build checks the same code with fewer photons: the
    # tolerances follow the variance, so they stay valid.
    set_tests_properties(validation_${case} PROPERTIES ENVIRONMENT "TMCML_VALIDATION_SCALE=0.1")
  endif()
endforeach()

add_test(NAME cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_cli.sh $<TARGET_FILE:tmcml>
  ${TMCML_TEST_DATA})

tmcml_test(test_quantization test_quantization.c)
add_test(NAME quantization COMMAND test_quantization)
