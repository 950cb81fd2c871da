# The fuzz harnesses (tests/fuzz/) replayed without libFuzzer, in every build:
# each over its checked-in seed corpus and the inputs of the crashes it found
# (tests/data/fuzz/HARNESS/, one file per fixed bug; tests/fuzz/README.md).
# Each linked with the room it reads with.
set(replay_room_mci io)
set(replay_room_profile tuner)
set(replay_room_run engine)
set(replay_room_npz io)
set(replay_room_cli cli)
foreach(harness mci profile run npz cli)
  tmcml_test(replay_${harness} ${replay_room_${harness}} fuzz/replay.c fuzz/fuzz_${harness}.c)
  add_test(NAME fuzz_replay_${harness} COMMAND replay_${harness}
    ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus/${harness} ${TMCML_TEST_DATA}/fuzz/${harness})
  set_tests_properties(fuzz_replay_${harness} PROPERTIES LABELS fuzz)
endforeach()
