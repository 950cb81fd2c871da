# The per-photon random streams (docs/rng.md).
tmcml_test(test_rng engine test_rng.c)
add_test(NAME rng COMMAND test_rng)
set_tests_properties(rng PROPERTIES LABELS "rng")

# Raw words of interleaved streams for dieharder (also used by
# tools/rng_battery.sh by hand).
add_executable(rng_stream ${PROJECT_SOURCE_DIR}/tools/rng_stream.c)
target_link_libraries(rng_stream PRIVATE tmcml_engine)

# A fast dieharder selection (~1 min on 2 cores); skipped when dieharder is
# not installed.
add_test(NAME rng_dieharder
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/rng_dieharder.sh $<TARGET_FILE:rng_stream>)
set_tests_properties(rng_dieharder PROPERTIES SKIP_RETURN_CODE 77 LABELS "rng"
  PROCESSORS 2 TIMEOUT 600)
