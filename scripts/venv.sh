# shellcheck shell=bash
# Sourced by scripts/lmsexport.sh, scripts/test.sh and scripts/lock.sh: the Python environment
# they install into, and how it is made on a fresh machine.
#
# Which environment: the virtual environment that is active ($VIRTUAL_ENV), if any; otherwise
# .venv/ in the repository, made with $PYTHON (default: python3) when it is missing. A system
# Python is never installed into (Debian's and Ubuntu's refuse it anyway, PEP 668). Where
# `python3 -m venv` fails because Debian's python3.X-venv package (ensurepip) is missing, that
# package is installed with apt-get, as root or through sudo, as scripts/ensure-chromium.sh does.
#
# Installs are from the lock files (requirements/*.txt, made by scripts/lock.sh): every
# package pinned with its hashes (pip --require-hashes), wheels only (but SDIST_ONLY), then lmsexport itself,
# editable, with --no-deps and --no-build-isolation (its build backend is in the lock too).

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The packages of the locks that have no wheel (pyslet, the QTI engine of the tests: its one
# release for Python 3 is an sdist). pip builds exactly the sdist the lock pins by hash, with
# --no-binary for them and --no-build-isolation, so its build needs nothing fetched unpinned:
# the setuptools of requirements/sdist-build.txt (hash-pinned, a wheel) is installed first.
SDIST_ONLY=pyslet
PYTHON=${PYTHON:-python3}
PIP_FLAGS=(--disable-pip-version-check --no-input --progress-bar off --quiet)

say() { echo "$(basename "$0"): $*" >&2; }

as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        say "not root and no sudo: run as root: $*"
        return 1
    fi
}

# The Debian/Ubuntu package that gives $PYTHON its ensurepip (python3.11-venv, ...).
venv_package() {
    "$PYTHON" -c 'import sys; print(f"python3.{sys.version_info[1]}-venv")'
}

# make_venv DIR: a new virtual environment with pip in DIR (whatever was there is removed).
make_venv() {
    local dir=$1 err
    if ! command -v "$PYTHON" >/dev/null 2>&1; then
        say "no $PYTHON found: install Python 3.11 or newer (or set PYTHON=/path/to/python3.X)"
        return 1
    fi
    rm -rf "$dir"
    if err=$("$PYTHON" -m venv "$dir" 2>&1); then
        return 0
    fi
    rm -rf "$dir"
    if ! grep -q ensurepip <<<"$err" || ! command -v apt-get >/dev/null 2>&1; then
        printf '%s\n' "$err" >&2
        say "could not create a virtual environment with $PYTHON"
        return 1
    fi
    local pkg
    pkg=$(venv_package)
    say "$PYTHON has no ensurepip; installing Debian's $pkg"
    export DEBIAN_FRONTEND=noninteractive
    as_root apt-get update -qq
    as_root apt-get install -y -qq "$pkg" >/dev/null
    "$PYTHON" -m venv "$dir"
}

# What a virtual environment made here depends on: the lock files and the interpreter.
env_fingerprint() {
    {
        cat "$ROOT"/requirements/*.txt
        "$PYTHON" -c 'import sys; print(sys.version, sys.executable)'
    } | sha256sum | cut -d' ' -f1
}

# prepare_env KIND: sets VENV_PY to the Python of an environment holding lmsexport and the
# locked requirements of KIND (run: requirements/run.txt; test: requirements/test.txt).
prepare_env() {
    local kind=$1 lock="$ROOT/requirements/$1.txt" venv owned=0
    [ -f "$lock" ] || { say "missing $lock: run bash scripts/lock.sh"; return 1; }
    if [ -n "${VIRTUAL_ENV:-}" ] && [ "$(cd "$VIRTUAL_ENV" 2>/dev/null && pwd)" != "$ROOT/.venv" ]; then
        venv=$VIRTUAL_ENV
        [ -x "$venv/bin/python" ] || { say "VIRTUAL_ENV=$venv has no bin/python"; return 1; }
    else
        venv=$ROOT/.venv
        owned=1
        local want
        want=$(env_fingerprint)
        # Made for other lock files or another Python, or broken: made anew, so that nothing
        # a previous lock installed stays behind.
        if ! "$venv/bin/python" -m pip --version >/dev/null 2>&1 ||
            [ "$(cat "$venv/.lmsexport-env" 2>/dev/null)" != "$want" ]; then
            say "creating $venv with $PYTHON"
            make_venv "$venv"
            echo "$want" >"$venv/.lmsexport-env"
        fi
    fi
    VENV_PY=$venv/bin/python
    # .venv/ remembers what it holds; an activated environment, not ours, is always brought up to date.
    local stamp="$venv/.lmsexport-$kind" installed
    installed=$(cat "$lock" "$ROOT/pyproject.toml" | sha256sum | cut -d' ' -f1)
    if [ "$owned" -eq 1 ] && [ "$(cat "$stamp" 2>/dev/null)" = "$installed" ]; then
        return 0
    fi
    say "installing requirements/$kind.txt and lmsexport into $venv"
    local binary=(--only-binary :all:)
    if grep -qiE "^(${SDIST_ONLY//,/|})==" "$lock"; then
        "$VENV_PY" -m pip install "${PIP_FLAGS[@]}" --require-hashes --only-binary :all: \
            -r "$ROOT/requirements/sdist-build.txt"
        binary+=(--no-binary "$SDIST_ONLY" --no-build-isolation)
    fi
    "$VENV_PY" -m pip install "${PIP_FLAGS[@]}" --require-hashes "${binary[@]}" -r "$lock"
    "$VENV_PY" -m pip install "${PIP_FLAGS[@]}" --no-deps --no-build-isolation -e "$ROOT"
    if [ "$owned" -eq 1 ]; then
        echo "$installed" >"$stamp"
    fi
}
