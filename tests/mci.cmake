# Tests of runtime/io/mci.c (the .mci reader); fixtures in data/mci and data/mci_bad.
tmcml_test(test_mci io test_mci.c)
add_test(NAME mci COMMAND test_mci)
# The source kinds' table (runtime/io/source.c): text forms, messages,
# descriptions and the parameters' fields follow from a kind's row.
tmcml_test(test_source_table io test_source_table.c)
add_test(NAME source_table COMMAND test_source_table)
