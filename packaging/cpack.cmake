# Packages of an installed tmcml (docs/install.md): a Debian package with
#   cmake -S . -B build-deb -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DCMAKE_INSTALL_PREFIX=/usr
#   cmake --build build-deb -j && (cd build-deb && cpack -G DEB)
set(CPACK_PACKAGE_NAME tmcml)
set(CPACK_PACKAGE_VENDOR "the tmcml developers")
set(CPACK_PACKAGE_CONTACT "the tmcml developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "MCML-compatible Monte Carlo simulation of light in layered tissue, on GPUs and CPUs")
set(CPACK_PACKAGE_DESCRIPTION
  "tmcml reads MCML 1.2.2 input files and writes MCML output files.  On an NVIDIA GPU it
generates a CUDA kernel for the problem and compiles it with NVRTC (the driver's
libcuda and NVRTC are loaded at run time when present); elsewhere a multi-threaded
CPU engine runs.  With the C library libtmcml, its header and pkg-config file.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_RESOURCE_FILE_README ${PROJECT_SOURCE_DIR}/README.md)
set(CPACK_GENERATOR DEB)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
# The libraries tmcml links: dpkg-shlibdeps (dpkg-dev) names their packages
# with the versions the build saw (Debian 12: libc6, libcjson1, liblua5.4-0,
# libpng16-16 and, when MPI is built in, libopenmpi3); without it, the
# three named here.
find_program(TMCML_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(TMCML_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6, libcjson1, liblua5.4-0, libpng16-16")
endif()
# The shlibs file and ldconfig trigger of a package that holds a library.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)

set(CPACK_SOURCE_IGNORE_FILES "/\\\\.git/" "/build[^/]*/" "/out/" "__pycache__")
include(CPack)
