#!/bin/sh
# The shipped profiles are current for this tmcml: tuned by this generator
# (templates and NVRTC options) with this NVRTC version.  A stale one means a
# template or compile option changed without a retune: run `tmcml tune` for
# its cases on that GPU (CONTRIBUTING.md).  Exit 77 without NVRTC, where no
# profile can be current.
# usage: test_shipped_profiles.sh TMCML PROFILES_DIR
set -u
tmcml=$1
dir=$2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$tmcml" profiles check "$dir"/*.json >"$out" 2>&1
rc=$?
cat "$out"
if grep -q "profile files\{0,1\}: 0 current, 0 stale, [1-9][0-9]* toolchain unknown" "$out"; then
    echo "shipped_profiles: no NVRTC here, nothing can be current: skipped"
    exit 77
fi
if grep -q ": stale:" "$out"; then
    echo "FAILED: a shipped profile is stale: retune it on its GPU (tmcml tune ... --profiles profiles)"
    exit 1
fi
[ "$rc" -eq 0 ] && echo "shipped_profiles: every shipped profile is current"
exit "$rc"
