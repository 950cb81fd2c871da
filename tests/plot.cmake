# Tests of `tmcml plot` (runtime/figure/plot_mco.c, plot_layout.c, label.c,
# axis.c; cli/plot_command.c): test_plot checks figures pixel by
# pixel against the results they show; test_plot.sh runs the command on a CPU
# run, on MCML's own reference outputs and on bad files.
tmcml_test(test_plot figure test_plot.c png_image.c)
add_test(NAME plot COMMAND test_plot)
add_test(NAME plot_cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_plot.sh $<TARGET_FILE:tmcml>
  $<TARGET_FILE:test_plot> ${TMCML_TEST_DATA})
set_tests_properties(plot plot_cli PROPERTIES LABELS "plot")
