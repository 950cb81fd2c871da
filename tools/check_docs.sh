#!/bin/sh
# Checks that the documentation stands alone and keeps up with the code
# (ctest docs; tests/test_docs_check.sh plants each fault):
#  1. no file cites a design brief, a style guide or a folder beside the
#     checkout that a user of the repository does not have (the names are
#     in `outside` below); only .ci/, the CI's own, may;
#  2. every docs/NAME.EXT a file names exists;
#  3. every section cited as `<page>.md, "Title"` is a heading of the page or
#     the bold start of one of its paragraphs ("Title" may be the start of
#     it; backquotes do not count);
#  4. every relative link of a Markdown file, [text](PATH), finds its file;
#  5. the text of tmcml_result_tallies in tmcml.h names every array whose
#     integer tallies it gives: the rows of output_table[]
#     (runtime/io/output_arrays.c) marked `.tallied = true`;
#  6. the README stays short and in order (issue 47): at most
#     $readme_lines lines, "Set up" its first section, a first run in
#     Python among its first $python_by lines, and the rest in docs/, every
#     page of which docs/index.md links.
# Prints each fault as FILE:LINE: what, and exits 1 if there is one.
#   sh tools/check_docs.sh
cd "$(dirname "$0")/.." || exit 2

# The citations of what is not in the repository, as an extended regular
# expression written so that this file does not match it.
outside='DESIGN[.]md|DESIGN[ ]§|STYLE[.]md|[.][.]/shared'
# The README's bounds (6.): the whole of it, and where its Python begins.
readme_lines=200
python_by=100
# Files that may keep such a citation, and why (none now: the templates'
# last two went once tools/carry_profiles.sh could show that a comment
# changes no cubin, so the shipped profiles stay current).
stale_ok=''

# The text files of the tree: tracked ones in a checkout, else all but the
# build folders.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    all=$(git ls-files)
else
    all=$(find . -type f ! -path './build*' ! -path './.git/*' | sed 's|^\./||')
fi
files=$(echo "$all" | grep -v -E '^\.ci/|\.(png|npz|cubin|gz)$')
faults=$(mktemp)
trap 'rm -f "$faults"' EXIT
fault() { echo "$*" >>"$faults"; }

# Every match of an extended regular expression in the files, as
# FILE:LINE:MATCH (-o) or FILE:LINE:TEXT.
matches() {
    # shellcheck disable=SC2086 # a word list of paths without spaces
    grep -H -n -I "$@" $files 2>/dev/null
}

# 1. Citations of what is outside.
matches -E "$outside" | while IFS= read -r hit; do
    f=${hit%%:*}
    rest=${hit#*:}
    case " $stale_ok " in *" $f "*) continue ;; esac
    fault "$f:${rest%%:*}: cites a file the repository does not hold (a docs/ page instead):" \
        "$(echo "${rest#*:}" | cut -c1-80)"
done
for f in $stale_ok; do
    [ ! -f "$f" ] || grep -q -E "$outside" "$f" ||
        fault "tools/check_docs.sh: $f no longer cites what is outside: take it off stale_ok"
done

# 2. docs/NAME.EXT that does not exist.
matches -o -E '(^|[^A-Za-z0-9_./-])docs/[A-Za-z0-9_-]+\.(md|png)' | while IFS= read -r hit; do
    f=${hit%%:*}
    rest=${hit#*:}
    path=docs/${rest#*docs/}
    [ -f "$path" ] || fault "$f:${rest%%:*}: names $path, which does not exist"
done

# The headings and bold paragraph starts of a Markdown file, backquotes
# dropped, one a line.
titles() {
    sed -n -e 's/^#\{1,6\}[[:space:]]*//p' \
        -e 's/^[[:space:]]*\(-[[:space:]]*\)\{0,1\}\*\*\([^*]*\)\*\*.*/\2/p' "$1" | tr -d '`'
}

# 3. <page>.md, "Title": a section that the page has.
matches -o -E '[A-Za-z0-9_./-]+\.md`?,? "[^"]+"' | while IFS= read -r hit; do
    f=${hit%%:*}
    rest=${hit#*:}
    line=${rest%%:*}
    cite=${rest#*:}
    target=$(echo "$cite" | sed 's/\.md.*/.md/')
    title=$(echo "$cite" | sed 's/^[^"]*"\([^"]*\)".*/\1/' | tr -d '`')
    if [ -f "$target" ]; then
        path=$target
    elif [ -f "$(dirname "$f")/$target" ]; then
        path=$(dirname "$f")/$target
    else
        fault "$f:$line: cites \"$title\" of $target, which does not exist"
        continue
    fi
    titles "$path" | awk -v t="$title" 'index($0, t) == 1 { found = 1 } END { exit !found }' ||
        fault "$f:$line: cites \"$title\" of $path, which has no such heading"
done

# 4. Relative links of the Markdown files.
for f in $(echo "$files" | grep '\.md$'); do
    grep -n -o -E '\]\([^)[:space:]]+\)' "$f" | while IFS= read -r hit; do
        link=$(echo "${hit#*:}" | sed 's/^](\(.*\))$/\1/; s/#.*//')
        case $link in '' | http:* | https:* | mailto:*) continue ;; esac
        [ -e "$(dirname "$f")/$link" ] || fault "$f:${hit%%:*}: links to $link, which does not exist"
    done
done

# 5. tmcml_result_tallies names every tallied array.
header=$(echo "$all" | grep -E '(^|/)tmcml\.h$' | head -n 1)
table=$(echo "$all" | grep -E '(^|/)output_arrays\.c$' | head -n 1)
if [ -z "$header" ] || [ -z "$table" ]; then
    fault "tools/check_docs.sh: tmcml.h or output_arrays.c not found"
else
    # The comment just above the declaration.
    text=$(awk '/^\/\*/ { block = "" } { block = block $0 "\n" }
        /tmcml_status tmcml_result_tallies\(/ { printf "%s", block; exit }' "$header")
    [ -n "$text" ] || fault "$header: no declaration of tmcml_result_tallies"
    # output_table[] alone: the derivative tallies' rows after it are no
    # output of tmcml_result_tallies.
    awk '/^};/ { exit }
        /\.name = "/ { split($0, q, "\""); name = q[2] }
        /\.tallied = true/ { print name }' "$table" | while IFS= read -r name; do
        constant=TMCML_$(echo "$name" | tr '[:lower:]' '[:upper:]')
        echo "$text" | grep -q -w "$constant" ||
            fault "$header: the text of tmcml_result_tallies does not name $constant" \
                "($table: its tallies are given)"
    done
fi

# 6. A short README, the set-up first and Python early; an index of docs/.
if [ -f README.md ]; then
    n=$(wc -l <README.md)
    [ "$n" -le "$readme_lines" ] ||
        fault "README.md: $n lines, more than $readme_lines: move the long material into docs/"
    first=$(grep -m 1 '^## ' README.md | sed 's/^## *//')
    [ "$first" = "Set up" ] || fault "README.md: its first section is \"$first\", not \"Set up\""
    python=$(grep -n -m 1 '^## .*Python' README.md | cut -d: -f1)
    if [ -z "$python" ] || [ "$python" -gt "$python_by" ]; then
        fault "README.md: no section on a first run in Python in its first $python_by lines"
    fi
fi
if [ -f docs/index.md ]; then
    for page in $(echo "$all" | grep -E '^docs/[^/]+\.md$' | grep -v '^docs/index\.md$'); do
        grep -q -F "](${page#docs/})" docs/index.md ||
            fault "docs/index.md: does not link $page"
    done
fi

if [ -s "$faults" ]; then
    cat "$faults"
    echo "check_docs: $(wc -l <"$faults") faults"
    exit 1
fi
echo "check_docs: $(echo "$files" | wc -l) files: citations, docs/ names, sections, links, tmcml_result_tallies, the README and docs/index.md in order"
