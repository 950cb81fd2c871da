# Tests of the generator's front half: KernelSpec (gen/spec.c), the template
# engine (templates/engine.lua) and the renderer (gen/render.c).  No GPU.
tmcml_test(test_spec gen test_spec.c)
add_test(NAME spec COMMAND test_spec)
tmcml_test(test_render gen test_render.c)
add_test(NAME render COMMAND test_render)
set_tests_properties(spec render PROPERTIES LABELS "gen")
# The knob table (gen/knob.c): every knob declared once.
tmcml_test(test_knob gen test_knob.c)
add_test(NAME knob COMMAND test_knob)
set_tests_properties(knob PROPERTIES LABELS "gen")
