# Tests of the generator's front half: KernelSpec (gen/spec.c), the template
# engine (templates/engine.lua) and the renderer (gen/render.c).  No GPU.
tmcml_test(test_spec gen test_spec.c)
add_test(NAME spec COMMAND test_spec)
tmcml_test(test_render gen test_render.c)
add_test(NAME render COMMAND test_render)
set_tests_properties(spec render PROPERTIES LABELS "gen")
# The problem shape's table (gen/shape.c): the order of profile entries and
# the text in messages follow from its rows.
tmcml_test(test_shape gen test_shape.c)
add_test(NAME shape COMMAND test_shape)
set_tests_properties(shape PROPERTIES LABELS "gen")
# The knob table (gen/knob.c): every knob declared once.
tmcml_test(test_knob gen test_knob.c)
add_test(NAME knob COMMAND test_knob)
set_tests_properties(knob PROPERTIES LABELS "gen")
# gen/standalone.c: `tmcml gen -o K.cu` writes the headers inlined, so the
# file compiles (NVRTC, no headers given) in a directory without templates/.
tmcml_test(test_standalone gen test_standalone.c)
add_test(NAME gen_standalone COMMAND test_standalone $<TARGET_FILE:tmcml>
  ${PROJECT_SOURCE_DIR}/examples/skin7_600nm.mci)
set_tests_properties(gen_standalone PROPERTIES LABELS "gen;nvrtc" SKIP_RETURN_CODE 77
  ENVIRONMENT "${TMCML_GPU_TEST_ENV}")
