#!/bin/sh
# Installs the Debian packages tmcml needs.
#   tools/deps.sh           what a build needs: a C compiler, CMake, Lua 5.4,
#                           cJSON and libpng (the build tree's tmcml, libtmcml
#                           and their tests' programs)
#   tools/deps.sh --tests   also what the whole test suite needs (tools/test.sh,
#                           .ci/run): Open MPI (the mpi test and an MPI build),
#                           Python with numpy, scipy (tmcml.fit), matplotlib
#                           (its plot) and pytest, dieharder, the locales'
#                           sources, clang-format, clang with libFuzzer
#   tools/deps.sh --mpi     the build's packages and Open MPI (mpirun)
#   --list                  print the packages instead of installing them
# The CUDA Toolkit (NVIDIA's, in /usr/local/cuda) is optional: libcuda and
# libnvrtc are loaded at run time.  Uses sudo when not root.
set -e
build="build-essential cmake pkg-config liblua5.4-dev libcjson-dev libpng-dev"
mpi="libopenmpi-dev openmpi-bin"
tests="$mpi locales dieharder clang-format clang libclang-rt-dev python3-numpy python3-scipy python3-matplotlib python3-pytest python3-setuptools python3-pip python3-venv"
packages=$build
list=false
for arg in "$@"; do
    case $arg in
        --tests) packages="$build $tests" ;;
        --mpi) [ "$packages" != "$build" ] || packages="$build $mpi" ;;
        --list) list=true ;;
        -h | --help)
            sed -n '2,14s/^# \{0,1\}//p' "$0"
            exit 0
            ;;
        *)
            echo "tools/deps.sh: unknown option '$arg' (--tests, --mpi, --list)" >&2
            exit 2
            ;;
    esac
done
if $list; then
    echo "$packages"
    exit 0
fi
if [ "$(id -u)" -eq 0 ]; then sudo=; else sudo=sudo; fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $packages >/dev/null
echo "tools/deps.sh: installed $packages"
