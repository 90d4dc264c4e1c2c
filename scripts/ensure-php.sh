#!/bin/sh
# Make sure PHP with its xml extension exists for tests/test_moodlexml_php.py, which parses every
# Moodle XML file lmsexport writes with PHP's own XML parser, as Moodle's importer does.
# Idempotent and silent when PHP is already there.
set -eu

if command -v php >/dev/null 2>&1 && php -r 'exit(function_exists("xml_parse_into_struct") ? 0 : 1);'; then
    exit 0
fi
need="php-cli php-xml"

if [ "$(id -u)" -eq 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
else
    echo "ensure-php: missing: $need; not root and no sudo;" >&2
    echo "ensure-php: install them with: apt-get install -y $need" >&2
    exit 1
fi

echo "ensure-php: installing Debian packages: $need" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $need >/dev/null
php -r 'exit(function_exists("xml_parse_into_struct") ? 0 : 1);' || {
    echo "ensure-php: apt-get finished but php has no xml extension" >&2
    exit 1
}
