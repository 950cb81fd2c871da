#!/bin/sh
# Makes the de_DE.UTF-8 locale of the locale tests (test_locale,
# python_locale) in DIR, for LOCPATH=DIR, with localedef from the sources of
# Debian's `locales` package; once per build tree.  Never fails: without the
# sources the tests skip (exit 77) and say why.
#   sh tests/make_locale.sh DIR
dir=$1
[ -f "$dir/de_DE.UTF-8/LC_NUMERIC" ] && exit 0
if ! command -v localedef >/dev/null 2>&1 || [ ! -f /usr/share/i18n/locales/de_DE ]; then
    echo "make_locale: no localedef or no /usr/share/i18n/locales/de_DE (tools/deps.sh --tests installs" \
        "locales): the locale tests skip"
    exit 0
fi
mkdir -p "$dir" && tmp=$(mktemp -d "$dir/.de_DE.XXXXXX") || exit 0
if localedef -i de_DE -f UTF-8 "$tmp/de_DE.UTF-8" && mv "$tmp/de_DE.UTF-8" "$dir/"; then
    echo "make_locale: de_DE.UTF-8 in $dir"
else
    echo "make_locale: localedef failed: the locale tests skip"
fi
rm -rf "$tmp"
exit 0
