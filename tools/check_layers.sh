#!/bin/sh
# Checks that the rooms depend on each other one way only (docs/architecture.md):
#   cli -> api -> tuner -> engine, figure -> io -> gen -> base, and templates
# below gen (engine and figure share a rank: neither includes the other)
# (a room may include its own headers and those of any room below it).
# Prints each include that points up and exits 1 if there is one.
cd "$(dirname "$0")/.." || exit 2
rank() {
    case $1 in
        gen/base) echo 0 ;; templates) echo 0 ;; gen) echo 1 ;; runtime/io) echo 2 ;;
        runtime/engine) echo 3 ;; runtime/figure) echo 3 ;; tuner) echo 4 ;; runtime/api) echo 5 ;;
        runtime/cli) echo 6 ;; *) echo 9 ;;
    esac
}
rooms="gen/base templates gen runtime/io runtime/engine runtime/figure tuner runtime/api runtime/cli"
room_of() { # header name -> its room
    for r in $rooms; do
        [ -f "$r/$1" ] && { echo "$r"; return; }
    done
}
bad=0
for r in $rooms; do
    for f in "$r"/*.c "$r"/*.h; do
        [ -f "$f" ] || continue
        for h in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
            hr=$(room_of "$(basename "$h")")
            [ -n "$hr" ] || continue
            if [ "$(rank "$hr")" -gt "$(rank "$r")" ]; then
                echo "$f includes $h ($hr is above $r)"
                bad=1
            fi
        done
    done
done
[ "$bad" -eq 0 ] && echo "check_layers: every include points down"
exit "$bad"
