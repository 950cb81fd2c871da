#!/bin/sh
# tools/check_docs.sh finds what it is there to find: in a copy of the
# repository's files, a citation of a brief that is not in the tree, and one
# of a folder beside the checkout, a docs/ page that does not exist, a
# section a page does not have, a broken link, an array left out of
# tmcml_result_tallies' text, a file on the list of exceptions that no
# longer needs to be, a README grown long, begun with another section and
# with its Python late, and a docs/ page that docs/index.md does not link;
# the copy as it is passes.
#   sh test_docs_check.sh SOURCE_DIR
src=$1
. "$(dirname "$0")/lib.sh"
tree="$work/tree"
mkdir -p "$tree"
# The tracked files (the check reads a tree without git as it finds it).
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    (cd "$src" && git ls-files | while IFS= read -r f; do [ -f "$f" ] && echo "$f"; done |
        tar -cf - -T -) | tar -C "$tree" -xf -
else
    tar -C "$src" --exclude='./build*' -cf - . | tar -C "$tree" -xf -
fi
expect 0 "the tree as it is" -- sh "$tree/tools/check_docs.sh"
contains "the tree as it is" "in order"

brief=DESIGN
printf 'As %s.md section 4 says.\n' "$brief" >>"$tree/docs/batches.md"
printf 'As %s §3 says.\n' "$brief" >>"$tree/docs/runs.md"
printf 'Inputs: ../%s/bench/lut100.mci.\n' shared >>"$tree/bench/README.md"
# (written in pieces, so that this file holds none of the faults itself)
{
    printf 'See docs/%s.md.\n' nowhere
    printf 'See docs/%s.%s, "%s".\n' tuning md "No such section"
    printf 'A [figure](%s).\n' missing.png
} >>"$tree/docs/rng.md"
header=$(find "$tree" -name tmcml.h -path '*api*' | head -n 1)
sed 's/TMCML_RD_FIBER  /TMCML_RD_FIBRE  /' "$header" >"$work/h" && cp "$work/h" "$header"
# The README: the set-up renamed, the Python section's heading gone, 200
# lines more; and a page the index leaves out.
sed -e 's/^## Set up$/## Getting started/' -e 's/^\(## .*\)Python/\1Scripting/' \
    "$tree/README.md" >"$work/readme" && cp "$work/readme" "$tree/README.md"
seq 200 >>"$tree/README.md"
printf '# A page of its own\n' >"$tree/docs/unlisted.md"
# An exception that no longer needs to be: a file on the list that cites
# nothing outside.
sed "s|^stale_ok=''|stale_ok='templates/photon.cu'|" "$tree/tools/check_docs.sh" >"$work/check" &&
    cp "$work/check" "$tree/tools/check_docs.sh"
expect 1 "planted faults" -- sh "$tree/tools/check_docs.sh"
contains "a brief" "docs/batches.md:[0-9]*: cites a file the repository does not hold"
contains "a brief's section" "docs/runs.md:[0-9]*: cites a file the repository does not hold"
contains "a folder beside" "bench/README.md:[0-9]*: cites a file the repository does not hold"
contains "a missing page" "docs/rng.md:[0-9]*: names docs/nowhere[.]md, which does not exist"
contains "a missing section" "cites \"No such section\" of docs/tuning.md, which has no such heading"
contains "a broken link" "docs/rng.md:[0-9]*: links to missing.png, which does not exist"
contains "an array left out" "does not name TMCML_RD_FIBER"
contains "a stale exception" "templates/photon.cu no longer cites what is outside"
contains "a long README" "README.md: [0-9]* lines, more than 200"
contains "the set-up not first" "README.md: its first section is \"Getting started\", not \"Set up\""
contains "Python late" "README.md: no section on a first run in Python in its first 100 lines"
contains "a page left out" "docs/index.md: does not link docs/unlisted[.]md"
finish test_docs_check
