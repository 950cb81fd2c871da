# Tests of the output rooms: files (base/fs.c), result, mco, summary.
tmcml_test(test_fs base test_fs.c)
add_test(NAME fs COMMAND test_fs)
tmcml_test(test_result io test_result.c)
add_test(NAME result COMMAND test_result)
tmcml_test(test_mco io test_mco.c)
add_test(NAME mco COMMAND test_mco)
tmcml_test(test_summary io test_summary.c)
add_test(NAME summary COMMAND test_summary)
