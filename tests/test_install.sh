#!/bin/sh
# An installed tmcml, moved: `cmake --install` into a temporary prefix, the
# prefix moved elsewhere as a whole, then from the moved one: `tmcml
# --version`, the shipped profiles found (`profiles list` names the moved
# prefix's folder), a short CPU run of an installed example, and
# examples/library_example.c built against the installed library with
# pkg-config and with find_package(tmcml), both run (docs/install.md).
# Exit 77 without pkg-config.
# usage: test_install.sh BUILD_DIR VERSION LIBDIR CC CMAKE [CFLAGS]
#   LIBDIR: CMAKE_INSTALL_LIBDIR; CFLAGS: the sanitizer build's, for the programs built here
set -u
build=$1 version=$2 libdir=$3 cc=$4 cmake=$5 cflags=${6:-}
command -v pkg-config >/dev/null 2>&1 || {
    echo "install: SKIPPED: pkg-config is not installed (apt-get install pkg-config)"
    exit 77
}
. "$(dirname "$0")/lib.sh"
export HOME="$work/home"
unset XDG_DATA_HOME TMCML_PROFILE_DIR TMCML_LIBRARY PKG_CONFIG_PATH CMAKE_PREFIX_PATH

expect 0 "install" -- "$cmake" --install "$build" --prefix "$work/p"
mv "$work/p" "$work/q"
q=$(cd "$work/q" && pwd -P)
for f in bin/tmcml include/tmcml.h "$libdir/libtmcml.so" "$libdir/libtmcml.so.1" \
    "$libdir/pkgconfig/tmcml.pc" "$libdir/cmake/tmcml/tmcmlConfig.cmake" \
    "$libdir/cmake/tmcml/tmcmlConfigVersion.cmake" share/man/man1/tmcml.1 \
    share/doc/tmcml/LICENSE share/doc/tmcml/CHANGELOG.md share/doc/tmcml/docs/library.md \
    share/doc/tmcml/examples/library_example.c; do
    check
    [ -e "$q/$f" ] || fail "not installed: $f"
done
check
case $(readlink "$q/$libdir/libtmcml.so.1") in
libtmcml.so.1.*) ;;
*) fail "libtmcml.so.1 leads to $(readlink "$q/$libdir/libtmcml.so.1"), not libtmcml.so.1.y.z" ;;
esac

# The moved program.
expect 0 "version" -- "$q/bin/tmcml" --version
contains "version" "^tmcml $version$"
expect 0 "profiles list" -- "$q/bin/tmcml" profiles list
contains "profiles list" "^shipped: $q/share/tmcml/profiles ([1-9][0-9]* profile files\{0,1\})"
expect 0 "run" -- "$q/bin/tmcml" run "$q/share/doc/tmcml/examples/mcml_example.mci" -N 2000 \
    --engine cpu --threads 2 -q --cache "" -o "$work/runs"
check
ls "$work/runs"/*.mco >/dev/null 2>&1 || fail "run: no .mco in $work/runs"

# The library, through pkg-config: compiler and linker flags from the moved .pc.
export PKG_CONFIG_PATH="$q/$libdir/pkgconfig"
expect 0 "pkg-config" -- pkg-config --modversion tmcml
contains "pkg-config" "^$version$"
pc_libdir=$(pkg-config --variable=libdir tmcml)
check
[ "$(cd "$pc_libdir" && pwd -P)" = "$q/$libdir" ] || fail "pkg-config's libdir $pc_libdir is not $q/$libdir"
example="$q/share/doc/tmcml/examples/library_example.c"
# shellcheck disable=SC2046,SC2086 # pkg-config's flags and CFLAGS are word lists
expect 0 "pkg-config build" -- "$cc" $cflags -o "$work/example_pc" "$example" \
    $(pkg-config --cflags --libs tmcml)
expect 0 "pkg-config run" -- env LD_LIBRARY_PATH="$pc_libdir" "$work/example_pc" 2 cpu
contains "pkg-config run" "session:"
# README's way: the pkg-config line with -Wl,-rpath, run with no
# LD_LIBRARY_PATH.
# shellcheck disable=SC2046,SC2086
expect 0 "pkg-config build, rpath" -- "$cc" $cflags -o "$work/example_rpath" "$example" \
    $(pkg-config --cflags --libs tmcml) -Wl,-rpath,"$pc_libdir"
expect 0 "pkg-config run, rpath" -- env -u LD_LIBRARY_PATH "$work/example_rpath" 2 cpu
contains "pkg-config run, rpath" "session:"

# The library, through find_package(tmcml) and the imported target tmcml::tmcml.
mkdir -p "$work/app"
cat >"$work/app/CMakeLists.txt" <<EOT
cmake_minimum_required(VERSION 3.18)
project(app C)
find_package(tmcml $version REQUIRED)
add_executable(example "$example")
target_link_libraries(example PRIVATE tmcml::tmcml)
EOT
expect 0 "find_package configure" -- "$cmake" -S "$work/app" -B "$work/app/build" \
    -DCMAKE_PREFIX_PATH="$q" -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$cflags"
contains "find_package configure" "Build files have been written"
expect 0 "find_package build" -- "$cmake" --build "$work/app/build"
# Its build RPATH names the moved prefix's library: no LD_LIBRARY_PATH.
expect 0 "find_package run" -- "$work/app/build/example" 2 cpu
contains "find_package run" "session:"
finish install
