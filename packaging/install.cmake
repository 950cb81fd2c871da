# What `cmake --install` puts under the prefix (docs/install.md), every
# destination relative to it (GNUInstallDirs), so an installed prefix can be
# moved as a whole:
#   bin/tmcml                         the program
#   lib/libtmcml.so.1.y.z, .so.1, .so the library (SONAME libtmcml.so.1)
#   include/tmcml.h                   its header
#   lib/pkgconfig/tmcml.pc            pkg-config, the prefix found from the file
#   lib/cmake/tmcml/                  find_package(tmcml): target tmcml::tmcml
#   share/tmcml/profiles/             the shipped profiles (found from bin/, lib/)
#   share/doc/tmcml/                  README, LICENSE, CHANGELOG, docs/, examples/
#   share/man/man1/tmcml.1            the manual page, made from `tmcml --help`
include(CMakePackageConfigHelpers)

install(TARGETS tmcml RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS libtmcml EXPORT tmcmlTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  PUBLIC_HEADER DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# pkg-config: the prefix relative to the .pc file's folder.
set(TMCML_PKGCONFIG_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH TMCML_PC_TO_PREFIX /prefix/${TMCML_PKGCONFIG_DIR} /prefix)
string(REGEX REPLACE "/$" "" TMCML_PC_TO_PREFIX "${TMCML_PC_TO_PREFIX}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/tmcml.pc.in ${PROJECT_BINARY_DIR}/tmcml.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/tmcml.pc DESTINATION ${TMCML_PKGCONFIG_DIR})

# The CMake package.  Its version is the project's; any newer tmcml serves
# a program built for an older one, as the library keeps every function of
# its SONAME (api/tmcml.map).
set(TMCML_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tmcml)
install(EXPORT tmcmlTargets NAMESPACE tmcml:: DESTINATION ${TMCML_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/tmcmlConfig.cmake.in
  ${PROJECT_BINARY_DIR}/tmcmlConfig.cmake INSTALL_DESTINATION ${TMCML_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tmcmlConfigVersion.cmake
  COMPATIBILITY AnyNewerVersion)
install(FILES ${PROJECT_BINARY_DIR}/tmcmlConfig.cmake ${PROJECT_BINARY_DIR}/tmcmlConfigVersion.cmake
  DESTINATION ${TMCML_CMAKE_DIR})

install(DIRECTORY ${PROJECT_SOURCE_DIR}/profiles/ DESTINATION ${TMCML_PROFILES_DIR}
  FILES_MATCHING PATTERN "*.json" PATTERN "README.md")

install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE
  ${PROJECT_SOURCE_DIR}/CHANGELOG.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)

# The manual page: `tmcml --help` set in roff at build time (packaging/man.cmake).
if(NOT CMAKE_CROSSCOMPILING)
  set(TMCML_MAN_PAGE ${PROJECT_BINARY_DIR}/tmcml.1)
  add_custom_command(OUTPUT ${TMCML_MAN_PAGE}
    COMMAND ${CMAKE_COMMAND} -DTMCML=$<TARGET_FILE:tmcml> -DVERSION=${PROJECT_VERSION}
            -DOUTPUT=${TMCML_MAN_PAGE} -P ${CMAKE_CURRENT_LIST_DIR}/man.cmake
    DEPENDS tmcml ${CMAKE_CURRENT_LIST_DIR}/man.cmake
    COMMENT "Writing the manual page tmcml.1 from tmcml --help"
    VERBATIM)
  add_custom_target(tmcml_man ALL DEPENDS ${TMCML_MAN_PAGE})
  install(FILES ${TMCML_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()
