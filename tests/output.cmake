# Tests of the output rooms: files (gen/base/fs.c), the table of output arrays,
# result, mco, summary.
tmcml_test(test_fs test_fs.c)
add_test(NAME fs COMMAND test_fs)
tmcml_test(test_output_arrays test_output_arrays.c)
add_test(NAME output_arrays COMMAND test_output_arrays)
tmcml_test(test_result test_result.c)
add_test(NAME result COMMAND test_result)
tmcml_test(test_mco test_mco.c)
add_test(NAME mco COMMAND test_mco)
tmcml_test(test_summary test_summary.c)
add_test(NAME summary COMMAND test_summary)
