# Tests of runtime/io/mci.c (the .mci reader); fixtures in data/mci and data/mci_bad.
tmcml_test(test_mci io test_mci.c)
add_test(NAME mci COMMAND test_mci)
