#!/usr/bin/env bash
# Install lmsexport and run it: `bash scripts/lmsexport.sh build` builds dist/ from source/.
#
# Into the active virtual environment if there is one, else .venv/ in the repository (made
# when missing, see scripts/venv.sh), installs exactly the versions of requirements/run.txt
# (hash-checked) and lmsexport itself (editable), then runs `lmsexport ARGS...` in the current
# directory. Later runs find everything installed and start at once; `.venv/bin/lmsexport`
# is the same command.
set -euo pipefail
# shellcheck source=scripts/venv.sh
. "$(dirname "$0")/venv.sh"
prepare_env run
exec "$(dirname "$VENV_PY")/lmsexport" "$@"
