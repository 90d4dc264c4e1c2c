"""Coverage-guided fuzz targets (atheris / libFuzzer) for the attack surfaces.

    python fuzz/fuzz.py yaml      [libFuzzer flags...]   # the YAML source loader
    python fuzz/fuzz.py gift      [libFuzzer flags...]   # the GIFT reader
    python fuzz/fuzz.py moodlexml [libFuzzer flags...]   # the Moodle XML reader
    python fuzz/fuzz.py package   [libFuzzer flags...]   # `lmsexport validate` on a zip
    python fuzz/fuzz.py qti12     [libFuzzer flags...]   # a QTI 1.2 package (DTD, DOCTYPE policy)
    python fuzz/fuzz.py cc        [libFuzzer flags...]   # a Common Cartridge (XSD, Schematron)

For example a ten-minute session with a seed corpus:

    python fuzz/fuzz.py yaml -max_total_time=600 -rss_limit_mb=2048 fuzz/corpus/yaml

A "crash" is any exception other than the typed errors the tool reports as diagnostics
(and any hang or memory blow-up libFuzzer detects). Seeds come from source/, dist/,
tests/cases/ and the bad-input corpus tests/bad/; `python fuzz/fuzz.py seed [DIR]`
(re)creates fuzz/corpus/ (or DIR) from them. docs/security.md has the limits and results.
"""

from __future__ import annotations

import io
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Fuzz the checkout this file is in, whatever copy of lmsexport happens to be installed.
sys.path.insert(0, str(ROOT))


def _yaml(data: bytes) -> None:
    from lmsexport.source import load_bytes

    diags: list = []
    load_bytes(data, "fuzz.yaml", diags, [])


def _gift(data: bytes) -> None:
    from lmsexport.readers.gift import read_quiz_bytes

    # The bytes entry point, as `lmsexport check FILE.gift.txt` reads a file: decoding, the
    # size limit and the reader. It reports problems as diagnostics and never raises.
    read_quiz_bytes(data, "fuzz.gift.txt")


def _moodlexml(data: bytes) -> None:
    from lmsexport.readers.moodlexml import read_quiz_bytes

    # As `lmsexport check FILE.xml` reads a file: the size limit, the hostile-XML parser and
    # the reader. It reports problems as diagnostics and never raises.
    read_quiz_bytes(data, "fuzz.xml")


def _package(data: bytes) -> None:
    from lmsexport.validate import validate_package

    validate_package(data, "fuzz.zip")


def _qti12(data: bytes) -> None:
    from lmsexport.validate_qti12 import validate_qti12_package

    validate_qti12_package(data, "fuzz.zip")


def _cc(data: bytes) -> None:
    from lmsexport.validate_qti12 import validate_cartridge

    validate_cartridge(data, "fuzz.imscc")


TARGETS = {
    "yaml": _yaml,
    "gift": _gift,
    "moodlexml": _moodlexml,
    "package": _package,
    "qti12": _qti12,
    "cc": _cc,
}


def seed(corpus: Path = ROOT / "fuzz" / "corpus") -> None:
    """Write seed corpora from the repository's own inputs, the bad-input corpus included
    (tests/bad/: every refusal path is a good starting point for mutations)."""
    sources = {
        "yaml": [
            *ROOT.glob("source/*.yaml"),
            *ROOT.glob("tests/cases/**/*.yaml"),
            *ROOT.glob("tests/bad/yaml/**/*.y*ml"),
        ],
        "gift": [
            *ROOT.glob("dist/gift/*.txt"),
            *ROOT.glob("tests/cases/**/*.gift.txt"),
            *ROOT.glob("tests/bad/gift/*.gift*"),
        ],
        "moodlexml": [
            *ROOT.glob("dist/moodle/*.xml"),
            *ROOT.glob("tests/cases/**/moodle/*.xml"),
            *ROOT.glob("tests/bad/moodlexml/*.xml"),
        ],
        "package": [*ROOT.glob("dist/qti21/*.zip"), *ROOT.glob("tests/bad/package/*.zip")],
        "qti12": [*ROOT.glob("dist/qti12/*.zip"), *ROOT.glob("tests/bad/package/qti12-*.zip")],
        "cc": [*ROOT.glob("dist/cc/*.imscc"), *ROOT.glob("tests/bad/package/cc-*.imscc")],
    }
    for name, files in sources.items():
        d = corpus / name
        d.mkdir(parents=True, exist_ok=True)
        for f in files:
            if f.stat().st_size < 200_000:
                (d / f.name).write_bytes(f.read_bytes())
    # a small package too, so mutations reach the members quickly
    small = io.BytesIO()
    with zipfile.ZipFile(small, "w") as zf:
        zf.writestr("imsmanifest.xml", b"<manifest/>")
    for name in ("package", "qti12", "cc"):
        (corpus / name / "tiny.zip").write_bytes(small.getvalue())


def main(argv: list[str]) -> None:
    if len(argv) < 2 or argv[1] not in (*TARGETS, "seed"):
        sys.exit(f"usage: {argv[0]} {{{'|'.join(TARGETS)}|seed}} [libFuzzer flags...]")
    if argv[1] == "seed":
        seed(Path(argv[2]) if len(argv) > 2 else ROOT / "fuzz" / "corpus")
        return
    import atheris

    target = TARGETS[argv[1]]
    with atheris.instrument_imports(include=["lmsexport"]):
        import lmsexport.readers.gift  # noqa: F401
        import lmsexport.readers.moodlexml  # noqa: F401
        import lmsexport.source  # noqa: F401
        import lmsexport.validate  # noqa: F401
        import lmsexport.validate_qti12  # noqa: F401
    # Warm up (schema compilation, lazy imports) outside the measured loop.
    target(b"")
    atheris.Setup([argv[0], *argv[2:]], target)
    atheris.Fuzz()


if __name__ == "__main__":
    main(sys.argv)
