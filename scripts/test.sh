#!/usr/bin/env bash
# Install the test requirements (the package with its [test] extra, Debian's chromium for the
# browser tests and PHP for the Moodle XML parser tests when they are missing), then run the
# whole test suite. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --quiet --disable-pip-version-check -e ".[test]"
bash scripts/ensure-chromium.sh
sh scripts/ensure-php.sh
exec python3 -m pytest "$@"
