# Tests of the heat map writer of `tmcml sweep` (runtime/figure/heatmap.c) and of the
# figure room's font and colour map it draws with (runtime/figure/).
# `test_heatmap --example FILE.png` writes a sample image to look at.
tmcml_test(test_heatmap figure test_heatmap.c png_image.c)
add_test(NAME heatmap COMMAND test_heatmap)
set_tests_properties(heatmap PROPERTIES LABELS "heatmap")
