#!/usr/bin/env bash
# Refresh the lock files: bash scripts/lock.sh [--upgrade | --upgrade-package NAME ...]
#
#   requirements/test.txt  runtime dependencies + the [test] extra + the build backend
#   requirements/run.txt   runtime dependencies + the build backend, at test.txt's versions
#   requirements/build.in  what the build backend needs (written here, from pyproject.toml's
#                          [build-system] and the backend's own get_requires_for_build_* hooks)
#
# Made with uv (`uv pip compile --universal --generate-hashes`): one file for every Python
# from pyproject's requires-python on and every platform, forking a package by markers when
# one version cannot serve all (requirements/constraints.in says where and why), with the
# hashes of every wheel and sdist of each pinned version. Without arguments, versions already
# locked are kept and only what pyproject.toml added or changed is resolved (run it after
# adding a dependency); --upgrade moves everything to the newest release. Extra arguments go
# to both `uv pip compile` calls.
#
# Then it checks that every locked package has a wheel for each target below, since
# scripts/venv.sh installs wheels only (--only-binary :all:): no sdist is built, so no build
# dependency is fetched unpinned. The one exception is $SDIST_ONLY (scripts/venv.sh): built from
# its hash-pinned sdist by the hash-pinned setuptools of requirements/sdist-build.txt, installed
# first, with --no-build-isolation.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/venv.sh
. scripts/venv.sh

UV_VERSION=0.13.9
# uv fetches an interpreter it lacks for --python-version from outside the package index:
# never. It resolves for that version all the same, and builds nothing here (wheels only).
export UV_PYTHON_DOWNLOADS=never
TARGET_PYTHONS="3.11 3.12 3.13 3.14"
TARGET_PLATFORMS="x86_64-manylinux_2_28 aarch64-manylinux_2_28"

tools=${XDG_CACHE_HOME:-$HOME/.cache}/lmsexport-lock/uv-$UV_VERSION
if ! "$tools/bin/uv" --version 2>/dev/null | grep -q "^uv $UV_VERSION "; then
    say "installing uv $UV_VERSION into $tools"
    make_venv "$tools"
    "$tools/bin/python" -m pip install "${PIP_FLAGS[@]}" "uv==$UV_VERSION"
fi
uv=$tools/bin/uv

# The build backend, asked for what it needs (it is in the lock so that lmsexport installs with
# --no-build-isolation). Installed into a scratch environment of its own, only to be asked.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$uv" venv -q --python "$PYTHON" "$scratch/venv"
mapfile -t backend < <("$PYTHON" -c 'import tomllib; print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["build-system"]["requires"]))')
"$uv" pip install -q --python "$scratch/venv/bin/python" "${backend[@]}"
"$scratch/venv/bin/python" - >requirements/build.in <<'PY'
import importlib
import tomllib

system = tomllib.load(open("pyproject.toml", "rb"))["build-system"]
module, _, attr = system["build-backend"].partition(":")
backend = importlib.import_module(module)
for part in filter(None, attr.split(".")):
    backend = getattr(backend, part)
needed = list(system["requires"])
for hook in ("get_requires_for_build_wheel", "get_requires_for_build_editable"):
    needed += getattr(backend, hook, lambda: [])()
print("# Written by scripts/lock.sh: what pyproject.toml's build backend needs to build lmsexport")
print("# (its wheel and its editable install). Locked so that installs can use --no-build-isolation.")
print("\n".join(dict.fromkeys(needed)))
PY

python_min=$("$PYTHON" -c 'import re, tomllib; print(re.search(r"\d+\.\d+", tomllib.load(open("pyproject.toml", "rb"))["project"]["requires-python"])[0])')
compile=("$uv" pip compile -q --universal --python-version "$python_min" --generate-hashes
    --custom-compile-command "bash scripts/lock.sh")
"${compile[@]}" pyproject.toml requirements/build.in requirements/sdist-build.in --extra test \
    -c requirements/constraints.in -o requirements/test.txt "$@"
"${compile[@]}" pyproject.toml requirements/build.in \
    -c requirements/test.txt -o requirements/run.txt "$@"
# What builds the sdist-only packages, at test.txt's versions: installed before them (venv.sh).
"${compile[@]}" requirements/sdist-build.in \
    -c requirements/test.txt -o requirements/sdist-build.txt "$@"

# run.txt is test.txt's versions of a subset of its packages: the checks of test.txt cover it.
pins() { grep -oE '^[A-Za-z0-9._-]+==[^ ;]+' "$@" | sort -u; }
status=0
for lock in run sdist-build; do
    missing=$(comm -23 <(pins "requirements/$lock.txt") <(pins requirements/test.txt))
    if [ -n "$missing" ]; then
        say "requirements/$lock.txt pins what requirements/test.txt does not: $missing"
        status=1
    fi
done
# Every target resolves from test.txt alone, wheels only (but the sdist-only packages, see
# scripts/venv.sh), to nothing the lock lacks.
for platform in $TARGET_PLATFORMS; do
    for py in $TARGET_PYTHONS; do
        if ! got=$("$uv" pip compile -q --no-header --no-annotate --only-binary :all: \
            --no-binary "$SDIST_ONLY" \
            --python-platform "$platform" --python-version "$py" requirements/test.txt 2>&1); then
            say "Python $py on $platform: requirements/test.txt is not installable from wheels:"
            printf '%s\n' "$got" >&2
            status=1
            continue
        fi
        extra=$(comm -13 <(pins requirements/test.txt) <(pins - <<<"$got"))
        if [ -n "$extra" ]; then
            say "Python $py on $platform needs what requirements/test.txt lacks: $extra"
            status=1
        fi
    done
done
[ "$status" -eq 0 ] && say "locked $(pins requirements/test.txt | wc -l) packages in requirements/test.txt, $(pins requirements/run.txt | wc -l) in requirements/run.txt; wheels for Python $TARGET_PYTHONS on $TARGET_PLATFORMS"
exit "$status"
