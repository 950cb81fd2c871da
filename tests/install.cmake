# The installed tree, moved (packaging/install.cmake, docs/install.md):
# cmake --install into a temporary prefix, moved, then the program, its
# shipped profiles and the library through pkg-config and find_package.
# Exit 77 without pkg-config.
set(TMCML_INSTALL_TEST_CFLAGS "")
if(TMCML_SANITIZE) # the installed library needs the sanitizers' runtime in the program
  set(TMCML_INSTALL_TEST_CFLAGS "-fsanitize=address,undefined")
endif()
add_test(NAME install COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_install.sh ${PROJECT_BINARY_DIR}
  ${PROJECT_VERSION} ${CMAKE_INSTALL_LIBDIR} ${CMAKE_C_COMPILER} ${CMAKE_COMMAND}
  "${TMCML_INSTALL_TEST_CFLAGS}")
set_tests_properties(install PROPERTIES LABELS install SKIP_RETURN_CODE 77 TIMEOUT 180)
