#!/bin/sh
# Make sure a Chromium binary exists for the browser tests (tests/test_html_browser.py).
# Playwright's own browser download is not used: the tests drive Debian's chromium package.
# Idempotent and silent when Chromium is already there.
set -eu

if [ -x /usr/bin/chromium ] || command -v chromium >/dev/null 2>&1; then
    exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
else
    echo "ensure-chromium: chromium is missing and this is not root and has no sudo;" >&2
    echo "ensure-chromium: install it with: apt-get install -y chromium" >&2
    exit 1
fi

echo "ensure-chromium: installing Debian's chromium package" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq chromium >/dev/null
command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || {
    echo "ensure-chromium: apt-get finished but no chromium binary was found" >&2
    exit 1
}
