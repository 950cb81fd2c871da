# Tests of the output rooms: files (base/fs.c), the table of output arrays,
# result, mco, summary.
tmcml_test(test_fs base test_fs.c)
add_test(NAME fs COMMAND test_fs)
tmcml_test(test_output_arrays io test_output_arrays.c)
add_test(NAME output_arrays COMMAND test_output_arrays)
tmcml_test(test_result io test_result.c)
add_test(NAME result COMMAND test_result)
tmcml_test(test_mco io test_mco.c)
add_test(NAME mco COMMAND test_mco)
tmcml_test(test_number_text io test_number_text.c)
add_test(NAME number_text COMMAND test_number_text)
tmcml_test(test_summary io test_summary.c)
add_test(NAME summary COMMAND test_summary)
# The zip writer of .npz files (runtime/io/zip.c): its records read back, and
# (zip_external) Python's zipfile and unzip -t on them, skipped without both.
tmcml_test(test_zip io test_zip.c)
add_test(NAME zip COMMAND test_zip)
add_test(NAME zip_external COMMAND test_zip external)
set_tests_properties(zip_external PROPERTIES SKIP_RETURN_CODE 77)
# Reading .npz members back (runtime/io/npz_reader.c), hostile files refused,
# and an .mco's standard errors from its .npz (mco_stderr.c); (npz_numpy)
# numpy.savez's files, skipped without numpy.
tmcml_test(test_npz_reader io test_npz_reader.c)
add_test(NAME npz_reader COMMAND test_npz_reader)
add_test(NAME npz_numpy COMMAND test_npz_reader numpy)
set_tests_properties(npz_numpy PROPERTIES SKIP_RETURN_CODE 77)
# Broad beams by convolution of the pencil response (runtime/io/conv.c).
tmcml_test(test_conv io test_conv.c)
add_test(NAME conv COMMAND test_conv)
add_test(NAME conv_cli COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_conv_cli.sh $<TARGET_FILE:tmcml>
  ${TMCML_TEST_DATA})
