"""The wheel carries the schemas, so validation works from an installed package, outside the repo."""

from __future__ import annotations

import hashlib
import importlib.util
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    src = tmp_path_factory.mktemp("src") / "lmsexport"
    # Build from a copy, so the build leaves nothing in the repository.
    shutil.copytree(
        ROOT, src, ignore=shutil.ignore_patterns(".git", "dist", "test-artifacts", "fuzz", "*.pyc")
    )
    # The locked test environment holds the build backend (requirements/test.txt): build with it,
    # so that no unpinned build dependency is fetched. Elsewhere pip fetches it as usual.
    isolation = [] if importlib.util.find_spec("hatchling") is None else ["--no-build-isolation"]
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", *isolation, "-q", "-w", str(out), str(src)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if result.returncode != 0:
        pytest.fail(f"pip wheel failed:\n{result.stderr[-3000:]}")
    (whl,) = out.glob("lmsexport-*.whl")
    return whl


def test_wheel_ships_the_schemas_unchanged(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        sums = zf.read("lmsexport/schemas/SHA256SUMS").decode()
        for line in sums.splitlines():
            digest, name = line.split(maxsplit=1)
            member = f"lmsexport/schemas/{name.strip()}"
            assert member in names, member
            assert hashlib.sha256(zf.read(member)).hexdigest() == digest, member
        for extra in ("catalog.xml", "locations.json", "README.md"):
            assert f"lmsexport/schemas/{extra}" in names


def test_installed_package_validates_offline_outside_the_repo(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(site)
    package = next((ROOT / "dist" / "qti21").glob("*.zip"))
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "import lmsexport.validate as v;"
        "assert str(v.schema_dir()).startswith(sys.argv[1]), v.schema_dir();"
        "d = v.validate_package(sys.argv[2]); print(len(d)); sys.exit(1 if d else 0)"
    )
    result = subprocess.run(
        [sys.executable, "-I", "-c", code, str(site), str(package)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr + result.stdout
