"""`[tool.lmsexport.lint]` in pyproject.toml, found from the current directory upward (as ruff
finds its configuration):

```toml
[tool.lmsexport.lint]
select = ["LX"]                 # ids or prefixes; default: every rule
ignore = ["LX303"]
significance = 0.01             # of the statistical rules LX101-LX103
per-file-ignores = { "source/legacy/*.yaml" = ["LX4"], "drafts.yaml" = ["LX501"] }
docs-url = "https://example.org/lmsexport/docs/lint.md"   # SARIF helpUri base
```

Per-file patterns are fnmatch patterns (``*`` also crosses ``/``) matched against the path
relative to the pyproject.toml's folder; a pattern without ``/`` also matches the file name.
"""

from __future__ import annotations

import fnmatch
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .checks import DEFAULT_SIGNIFICANCE
from .rules import check_selector, resolve


class ConfigError(ValueError):
    """pyproject.toml's [tool.lmsexport.lint] is malformed (a usage error, exit 2)."""


KEYS = ("select", "ignore", "per-file-ignores", "significance", "docs-url")


@dataclass(frozen=True)
class LintConfig:
    select: tuple[str, ...] = ("LX",)
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    significance: float = DEFAULT_SIGNIFICANCE
    docs_url: str | None = None
    root: Path | None = None
    """The folder of the pyproject.toml read (per-file patterns are relative to it)."""
    source: str | None = field(default=None, compare=False)
    """The pyproject.toml read, for messages."""

    @property
    def enabled(self) -> frozenset[str]:
        return resolve(self.select, self.ignore)

    def file_ignores(self, path: str) -> tuple[str, ...]:
        """Selectors per-file-ignores gives the file at path (as given on the command line)."""
        if not self.per_file_ignores:
            return ()
        p = Path(path)
        try:
            rel = p.resolve().relative_to(self.root.resolve()).as_posix() if self.root else p.as_posix()
        except ValueError:
            rel = p.as_posix()
        out: list[str] = []
        for pattern, selectors in self.per_file_ignores:
            if fnmatch.fnmatchcase(rel, pattern) or (
                "/" not in pattern and fnmatch.fnmatchcase(p.name, pattern)
            ):
                out.extend(selectors)
        return tuple(out)


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml with a [tool.lmsexport.lint] table, from start upward."""
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            try:
                data = tomllib.loads(candidate.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
                raise ConfigError(f"{candidate}: cannot read it: {e}") from None
            if "lint" in data.get("tool", {}).get("lmsexport", {}):
                return candidate
    return None


def _selectors(value: object, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise ConfigError(f'{where} must be a list of rule ids or prefixes, e.g. ["LX3", "LX401"]')
    try:
        return tuple(check_selector(x) for x in value)
    except ValueError as e:
        raise ConfigError(f"{where}: {e}") from None


def load_config(start: Path | None = None) -> LintConfig:
    """The configuration that applies in start (default: the current directory)."""
    found = find_pyproject((start or Path.cwd()).resolve())
    if found is None:
        return LintConfig()
    table = tomllib.loads(found.read_text(encoding="utf-8"))["tool"]["lmsexport"]["lint"]
    where = f"{found}: [tool.lmsexport.lint]"
    if not isinstance(table, dict):
        raise ConfigError(f"{where} must be a table")
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise ConfigError(f"{where}: unknown key '{unknown[0]}' (known: {', '.join(KEYS)})")
    kwargs: dict[str, object] = {"root": found.parent, "source": str(found)}
    if "select" in table:
        kwargs["select"] = _selectors(table["select"], f"{where} select")
    if "ignore" in table:
        kwargs["ignore"] = _selectors(table["ignore"], f"{where} ignore")
    if "per-file-ignores" in table:
        pfi = table["per-file-ignores"]
        if not isinstance(pfi, dict):
            raise ConfigError(f"{where} per-file-ignores must be a table of pattern = [rules]")
        kwargs["per_file_ignores"] = tuple(
            (pattern, _selectors(value, f"{where} per-file-ignores '{pattern}'"))
            for pattern, value in pfi.items()
        )
    if "significance" in table:
        alpha = table["significance"]
        if isinstance(alpha, bool) or not isinstance(alpha, int | float) or not 0 < alpha < 1:
            raise ConfigError(f"{where} significance must be a number between 0 and 1, e.g. 0.01")
        kwargs["significance"] = float(alpha)
    if "docs-url" in table:
        url = table["docs-url"]
        if not isinstance(url, str) or not url.startswith(("https://", "http://")):
            raise ConfigError(f"{where} docs-url must be an http(s) URL of docs/lint.md")
        kwargs["docs_url"] = url
    return LintConfig(**kwargs)  # type: ignore[arg-type]
