#!/bin/sh
# The README's set-up (issue 24): its two commands are the ones .ci/run and a
# new user run (the plain build's packages, then --tests for the suite);
# tools/deps.sh installs the test and MPI tooling only with --tests (or
# --mpi); and every .mci file a command of the README names is shipped.
#   sh tests/test_setup.sh ROOT
root=$1
. "$(dirname "$0")/lib.sh"
cd "$root" || exit 1

commands=$(awk '/^```sh$/ {on = 1; next} /^```$/ {on = 0} on' README.md)
first=$(printf '%s\n' "$commands" | sed -n 1p)
second=$(printf '%s\n' "$commands" | sed -n 2p)
check; case $first in "tools/deps.sh && cmake -S . -B build "*) ;; *) fail "README's first command: $first" ;; esac
check; [ "$second" = "tools/deps.sh --tests && tools/test.sh" ] || fail "README's second command: $second"
# .ci/run runs the line its pattern finds: the second command.
pattern=$(sed -n "s/^cmd=\$(grep -m1 -E '\(.*\)' README.md.*/\1/p" .ci/run)
check; [ -n "$pattern" ] && [ "$(grep -m1 -E "$pattern" README.md)" = "$second" ] ||
    fail ".ci/run's pattern '$pattern' does not find the README's test command"

plain=" $(sh tools/deps.sh --list) "
tests=" $(sh tools/deps.sh --tests --list) "
for p in cmake liblua5.4-dev libcjson-dev libpng-dev; do
    check; case $plain in *" $p "*) ;; *) fail "tools/deps.sh does not install $p" ;; esac
done
for p in python3-numpy python3-pytest dieharder libopenmpi-dev openmpi-bin clang \
    libclang-rt-dev clang-format locales; do
    check; case $plain in *" $p "*) fail "tools/deps.sh installs $p for a plain build" ;; esac
    check; case $tests in *" $p "*) ;; *) fail "tools/deps.sh --tests does not install $p" ;; esac
done
expect 2 "deps.sh, a bad option" -- sh tools/deps.sh --bogus
contains "deps.sh, a bad option" "unknown option '--bogus'"

# Every .mci named in a command of the README exists (a path from the root).
for mci in $(printf '%s\n' "$commands" | grep -o '[^ ]*\.mci' | sort -u); do
    check; [ -f "$mci" ] || fail "README names $mci, which does not exist"
done
finish test_setup
