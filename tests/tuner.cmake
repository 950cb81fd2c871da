# The tuner (tuner/candidates.c, tuner/sweep.c ranges; variant order with a
# profile entry) without a GPU.
tmcml_test(test_candidates tuner test_candidates.c)
add_test(NAME candidates COMMAND test_candidates)
set_tests_properties(candidates PROPERTIES LABELS "tuner")

# On a GPU: tune, profile, run, gate, sweep (skipped without one).
add_test(NAME gpu_tuner
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_tuner_gpu.sh $<TARGET_FILE:tmcml>
          ${PROJECT_SOURCE_DIR}/examples)
set_tests_properties(gpu_tuner PROPERTIES SKIP_RETURN_CODE 77 LABELS "gpu" TIMEOUT 600
  ENVIRONMENT "${TMCML_GPU_TEST_ENV}")

# The tuner's search, gate and profile store without a GPU: every recording
# in tests/data/tune/ (a real `tmcml tune --csv` on a GPU, or the hand-made
# synthetic_* that make_tune_synthetic writes) replayed through the replay
# runner (tuner/replay_runner.h).
tmcml_test(make_tune_synthetic tuner make_tune_synthetic.c)
tmcml_test(test_tune_replay tuner test_tune_replay.c)
add_test(NAME tune_replay COMMAND test_tune_replay ${CMAKE_CURRENT_SOURCE_DIR}/data/tune)
set_tests_properties(tune_replay PROPERTIES LABELS "tuner")
