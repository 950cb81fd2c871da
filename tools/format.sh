#!/bin/sh
# Formats the C sources with clang-format (.clang-format at the root), or
# with --check lists the files that are not formatted and exits 1.  The
# templates are left alone (.clang-format says why).  Exit 77 without
# clang-format.
#   sh tools/format.sh [--check]
cd "$(dirname "$0")/.." || exit 2
command -v clang-format >/dev/null 2>&1 || {
    echo "format: clang-format is not installed (apt-get install clang-format): skipped"
    exit 77
}
files=$(git ls-files '*.c' '*.h' 2>/dev/null | grep -v '^templates/')
[ -n "$files" ] || files=$(find gen runtime tuner tests bench tools -name '*.[ch]' | grep -v '^templates/')
if [ "${1:-}" = "--check" ]; then
    bad=0
    for f in $files; do
        if ! clang-format "$f" | cmp -s - "$f"; then
            echo "not formatted: $f (sh tools/format.sh)"
            bad=1
        fi
    done
    [ "$bad" -eq 0 ] && echo "format: $(echo "$files" | wc -w) files formatted as .clang-format says"
    exit "$bad"
fi
# shellcheck disable=SC2086 # a word list of paths without spaces
clang-format -i $files
