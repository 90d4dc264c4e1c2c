#!/usr/bin/env bash
# Install the test requirements (the package with its [test] extra, and Debian's chromium for
# the browser tests when it is missing), then run the whole test suite. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --quiet --disable-pip-version-check -e ".[test]"
bash scripts/ensure-chromium.sh
exec python3 -m pytest "$@"
