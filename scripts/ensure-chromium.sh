#!/bin/sh
# Make sure a Chromium binary exists for the browser tests (tests/test_html_browser.py), and
# the Noto fonts that render Urdu (Nastaliq) in the screenshots the tests keep.
# Playwright's own browser download is not used: the tests drive Debian's chromium package.
# Playwright's driver (the node binary in its wheel) needs libatomic.so.1, which a minimal
# Debian lacks and chromium does not pull in (seen in a debootstrap'd bookworm: every browser
# test failed with "Connection closed while reading from the driver").
# Idempotent and silent when everything is already there.
set -eu

need=""
if ! { [ -x /usr/bin/chromium ] || command -v chromium >/dev/null 2>&1; }; then
    need="chromium"
fi
if [ ! -e /usr/share/fonts/truetype/noto/NotoNastaliqUrdu-Regular.ttf ]; then
    need="$need fonts-noto-core"
fi
atomic=""
for lib in /usr/lib/*/libatomic.so.1 /lib/*/libatomic.so.1 /usr/lib64/libatomic.so.1; do
    [ -e "$lib" ] && atomic=yes
done
if [ -z "$atomic" ]; then
    need="$need libatomic1"
fi
[ -z "$need" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
else
    echo "ensure-chromium: missing:$need; not root and no sudo;" >&2
    echo "ensure-chromium: install them with: apt-get install -y $need" >&2
    exit 1
fi

echo "ensure-chromium: installing Debian packages:$need" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq $need >/dev/null
command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || {
    echo "ensure-chromium: apt-get finished but no chromium binary was found" >&2
    exit 1
}
