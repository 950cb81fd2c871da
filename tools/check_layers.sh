#!/bin/sh
# Checks that the rooms depend on each other one way only (docs/architecture.md).
# The rooms and their ranks, bottom first:
#   0 base, templates   1 gen   2 runtime/io   3 runtime/engine, runtime/figure
#   4 tuner   5 driver   6 api   7 cli
# A C file includes the headers of its own room and of the rooms ranked below
# it: never one of a room above, nor one of another room of its own rank
# (engine and figure stand side by side).  The top-level folders keep the
# same order whatever they hold, a file anywhere under one including nothing
# found under a folder ranked above it (runtime holds ranks 2 and 3: 2).
# Every C file of these folders lies in a room, and no two headers share a
# name (an include names a header by its name alone).  The build refuses an
# include that runs up between rooms (CMakeLists.txt: a room sees the include
# folders of the rooms below it alone); this check says the same of every
# file, and of the folders.
# Prints each fault and exits 1 if there is one.
cd "$(dirname "$0")/.." || exit 2
folders="base templates gen runtime tuner driver api cli"
# shellcheck disable=SC2086 # a word list of folders
sources=$(find $folders -name '*.[ch]' | sort)
# One line per include: FILE HEADER.
includes=$(for f in $sources; do
    sed -n "s|^#include \"\([^\"]*\)\".*|$f \1|p" "$f"
done)
{
    echo "$sources" | sed 's/^/file /'
    echo "$includes" | sed 's/^/include /'
} | awk '
function rank(r) {
    if (r == "base" || r == "templates") return 0
    if (r == "gen") return 1
    if (r == "runtime/io" || r == "runtime") return 2
    if (r == "runtime/engine" || r == "runtime/figure") return 3
    if (r == "tuner") return 4
    if (r == "driver") return 5
    if (r == "api") return 6
    if (r == "cli") return 7
    return 9
}
function dir(p) { sub(/\/[^\/]*$/, "", p); return p }
function top(p) { sub(/\/.*$/, "", p); return p }
function base(p) { sub(/^.*\//, "", p); return p }
function room(p) { return (dir(p) in is_room) ? dir(p) : "" }
function fault(text) { print text; bad = 1 }
BEGIN {
    n = split("base templates gen runtime/io runtime/engine runtime/figure tuner driver api cli", rooms, " ")
    for (i = 1; i <= n; i++) is_room[rooms[i]] = 1
}
$1 == "file" {
    if (room($2) == "") fault($2 " is in no room (" "base templates gen runtime/io runtime/engine runtime/figure tuner driver api cli)")
    if ($2 ~ /\.h$/) {
        name = base($2)
        if (name in header) fault("two headers named " name ": " header[name] " " $2)
        else header[name] = $2
    }
    next
}
$1 == "include" {
    f = $2; name = base($3)
    if (!(name in header)) next
    h = header[name]
    if (rank(top(h)) > rank(top(f))) {
        fault(f " includes " $3 " (" top(h) "/ is above " top(f) "/)")
        next
    }
    r = room(f); hr = room(h)
    if (r == "" || hr == "" || r == hr) next
    if (rank(hr) > rank(r)) fault(f " includes " $3 " (" hr " is above " r ")")
    else if (rank(hr) == rank(r)) fault(f " includes " $3 " (" hr " stands beside " r ": same rank)")
}
END {
    if (!bad) print "check_layers: every include points down, by room and by folder"
    exit bad
}'
