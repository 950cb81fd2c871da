#!/bin/sh
# tools/check_layers.sh finds what it is there to find: in a copy of the
# rooms, an include that runs up a room, one between the two rooms of rank 3,
# one from a file in no room up to a higher folder, and two headers of one
# name; the copy as it is passes.
#   sh test_layers.sh SOURCE_DIR
src=$1
. "$(dirname "$0")/lib.sh"
tree="$work/tree"
mkdir -p "$tree/tools"
cp "$src/tools/check_layers.sh" "$tree/tools/"
for d in base templates gen runtime tuner api cli; do
    cp -R "$src/$d" "$tree/"
done
expect 0 "the rooms as they are" -- sh "$tree/tools/check_layers.sh"
contains "the rooms as they are" "every include points down"

printf '#include "gpu.h"\n' >>"$tree/runtime/io/mci.c"
printf '#include "canvas.h"\n' >>"$tree/runtime/engine/cpu.c"
mkdir "$tree/runtime/sub"
printf '#include "plan.h"\n' >"$tree/runtime/sub/stray.c"
cp "$tree/base/hash.h" "$tree/gen/hash.h"
expect 1 "planted faults" -- sh "$tree/tools/check_layers.sh"
contains "up a room" "runtime/io/mci.c includes gpu.h (runtime/engine is above runtime/io)"
contains "side by side" "runtime/engine/cpu.c includes canvas.h (runtime/figure stands beside"
contains "no room" "runtime/sub/stray.c is in no room"
contains "up a folder" "runtime/sub/stray.c includes plan.h (tuner/ is above runtime/)"
contains "one name" "two headers named hash.h"
finish test_layers
