#!/bin/sh
# Formats the C sources with clang-format (.clang-format at the root), or
# with --check lists the files that are not formatted and exits 1.  The
# templates are left alone (.clang-format says why).  Exit 77 without
# clang-format.
#   sh tools/format.sh [--check]
# --check also checks, without clang-format, that every multi-line #define
# (the X-macro tables: PROBLEM_SHAPE_MEMBERS, OUTPUT_TALLY_FIELDS, ...) keeps
# the form clang-format gives it, one row a line: each line's backslash in
# the last column (ColumnLimit) and no line of the body in column 0 read as a directive
# (#name).  clang-format cannot repair either: a backslash inside a comment
# that runs on over several lines, or a braced row macro that clang-format
# 14 splits (.clang-format says what to do instead).
cd "$(dirname "$0")/.." || exit 2
files=$(git ls-files '*.c' '*.h' 2>/dev/null | grep -v '^templates/')
[ -n "$files" ] || files=$(find gen runtime tuner tests bench tools -name '*.[ch]' | grep -v '^templates/')

# The lines of multi-line #defines out of form, as FILE:LINE: what; outside
# `// clang-format off` regions, where a row is kept by hand.
macro_lines_out_of_form() {
    limit=$(sed -n 's/^ColumnLimit: *\([0-9]*\).*/\1/p' .clang-format)
    for f in $files; do
        # Columns, not bytes: UTF-8 continuation bytes are not counted.
        LC_ALL=C awk -v file="$f" -v limit="${limit:-100}" '
            BEGIN { utf8_tail = sprintf("[%c-%c]", 128, 191) }
            /^[ \t]*\/\/ clang-format off/ { off = 1 }
            /^[ \t]*\/\/ clang-format on/ { off = 0 }
            {
                body = in_define
                if (!in_define && /^[ \t]*#[ \t]*define[ \t]/ && /\\$/)
                    in_define = 1
                if (!off && in_define) {
                    if (body && substr($0, 1, 1) == "#")
                        printf "%s:%d: a line of a macro body in column 0 (read as a directive)\n", file, NR
                    line = $0
                    gsub(utf8_tail, "", line)
                    if (/\\$/ && length(line) != limit)
                        printf "%s:%d: backslash in column %d, not %d\n", file, NR, length(line), limit
                }
                if (!/\\$/)
                    in_define = 0
            }' "$f"
    done
}

if [ "${1:-}" = "--check" ]; then
    out=$(macro_lines_out_of_form)
    if [ -n "$out" ]; then
        echo "$out"
        echo "format: macro tables out of form (a comment in a macro closes on its own line;" \
            "a braced row macro goes in a clang-format off region: .clang-format)"
        exit 1
    fi
fi
command -v clang-format >/dev/null 2>&1 || {
    echo "format: clang-format is not installed (apt-get install clang-format): skipped"
    exit 77
}
if [ "${1:-}" = "--check" ]; then
    bad=0
    for f in $files; do
        if ! clang-format "$f" | cmp -s - "$f"; then
            echo "not formatted: $f (sh tools/format.sh)"
            bad=1
        fi
    done
    [ "$bad" -eq 0 ] && echo "format: $(echo "$files" | wc -w) files formatted as .clang-format says, macro tables in form"
    exit "$bad"
fi
# shellcheck disable=SC2086 # a word list of paths without spaces
clang-format -i $files
