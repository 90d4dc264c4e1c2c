"""The page templates' compiled code, kept between runs (writers.COMPILED_TEMPLATES).

jinja2 compiles the quiz page's template in ~0.1 s, in every process that renders a page: a
build's (before its pool forks) or, when one file is rebuilt after an edit, its one worker,
where it is on the edit's critical path. Its own bytecode cache format (writers.html: a Bucket,
checked by jinja2 for its bytecode version, Python's version and the template's checksum) is
kept here, one file per entry, in the user's cache directory: ``$XDG_CACHE_HOME/lmsexport/
templates`` (else ``~/.cache/lmsexport/templates``), never beside OUT or the sources. An entry is
code that is run, so the directory and its files are used only if they are this user's and
writable by nobody else (as jinja2's own FileSystemBytecodeCache requires of its directory); a
repository or an output folder cannot bring one. Any problem reading or writing it is ignored:
the template is compiled, as without the cache. The outputs' bytes do not depend on it.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
from pathlib import Path

_ENTRY = re.compile(r"[0-9a-f]{64}\.jinja2c")
MAX_ENTRY_BYTES = 8 << 20
_loaded: dict[str, bytes] = {}


def directory() -> Path | None:
    """Where the entries live, or None where there is no user id to check them by."""
    if not hasattr(os, "getuid"):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    if not os.path.isabs(base):  # (the XDG rule: a relative path is to be ignored)
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "lmsexport" / "templates"


def _private(st: os.stat_result) -> bool:
    return st.st_uid == os.getuid() and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def load() -> None:
    """Hand writers.COMPILED_TEMPLATES the entries kept (a build does this before anything is
    rendered, so that a pool's workers inherit them)."""
    from .writers import COMPILED_TEMPLATES

    where = directory()
    if where is None:
        return
    try:
        if not _private(os.stat(where)):
            return
        with os.scandir(where) as entries:
            for entry in entries:
                if not _ENTRY.fullmatch(entry.name):
                    continue
                st = entry.stat(follow_symlinks=False)
                if not stat.S_ISREG(st.st_mode) or not _private(st) or st.st_size > MAX_ENTRY_BYTES:
                    continue
                with contextlib.suppress(OSError):
                    data = Path(entry.path).read_bytes()
                    _loaded[entry.name[:-8]] = data
                    COMPILED_TEMPLATES.setdefault(entry.name[:-8], data)
    except OSError:
        return


def save() -> None:
    """Keep the entries of writers.COMPILED_TEMPLATES that are new or changed since load()."""
    from .writers import COMPILED_TEMPLATES

    where = directory()
    fresh = {k: v for k, v in COMPILED_TEMPLATES.items() if _loaded.get(k) != v and len(v) <= MAX_ENTRY_BYTES}
    if where is None or not fresh:
        return
    try:
        where.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not _private(os.stat(where)):
            return
        for key, data in fresh.items():
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=where)  # (mode 0600)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data)
                os.replace(tmp, where / f"{key}.jinja2c")
            except OSError:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
            _loaded[key] = data
    except OSError:
        return
