#!/usr/bin/env bash
# The test command (README, .ci/run): install the test requirements, then run the whole suite.
#
#   bash scripts/test.sh [PYTEST ARGS...]           the locked versions (requirements/test.txt)
#   bash scripts/test.sh --latest [PYTEST ARGS...]  the newest release of every dependency
#
# Locked (default): into the active virtual environment if there is one, else .venv/ (made
# when missing, see scripts/venv.sh), installs exactly the versions of requirements/test.txt
# (hash-checked), lmsexport itself (editable), Debian's chromium for the browser tests and
# PHP for the Moodle XML parser tests when they are missing; then runs pytest.
#
# --latest: what `pip install ".[test]"` gives a user today, in a virtual environment of its
# own made anew every time (.venv-latest/): the newest pip, the newest release of every
# dependency and of the build backend. It prints the versions it got, then runs the same suite.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/venv.sh
. scripts/venv.sh

if [ "${1:-}" = "--latest" ]; then
    shift
    venv=$ROOT/.venv-latest
    say "creating $venv with $PYTHON (newest releases)"
    make_venv "$venv"
    VENV_PY=$venv/bin/python
    "$VENV_PY" -m pip install "${PIP_FLAGS[@]}" --upgrade pip
    "$VENV_PY" -m pip install "${PIP_FLAGS[@]}" -e ".[test]"
    say "testing with: $("$VENV_PY" -m pip list --format=freeze --exclude-editable | tr '\n' ' ')"
else
    prepare_env test
fi
bash scripts/ensure-chromium.sh
sh scripts/ensure-php.sh
# As if activated: the tests run the environment's own tools (ruff) by name.
VIRTUAL_ENV=$(dirname "$(dirname "$VENV_PY")")
export VIRTUAL_ENV PATH="$VIRTUAL_ENV/bin:$PATH"
exec "$VENV_PY" -m pytest "$@"
