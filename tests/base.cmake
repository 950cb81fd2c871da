# The ground floor (base/): what has no room of its own to be tested with.
tmcml_test(test_base base test_base.c)
add_test(NAME base COMMAND test_base)
