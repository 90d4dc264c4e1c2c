"""The members of a package to import, from a zip or a folder, read as untrusted input.

A zip is checked from its central directory before anything is inflated, with lmsexport.validate's
checks and limits (unsafe or duplicate names, symbolic links, encryption, compression methods,
MAX_MEMBERS, MAX_MEMBER_BYTES, MAX_TOTAL_BYTES, MAX_RATIO) and each member is read no further than
its declared size. A folder (an unpacked package) gets the same limits: members are the regular
files below it (symbolic links are refused, so nothing outside the folder is ever read), counted,
and each read only when its size is within the limit. macOS debris (``__MACOSX/``, ``._*``,
``.DS_Store``) is left out of both.

Member names are package paths (``items/q1.xml``); diagnostics name a zip member
``pkg.zip!items/q1.xml`` (as validate does) and a folder member by its path.
"""

from __future__ import annotations

import os
import stat
import zipfile
from pathlib import Path

from ..errors import Diagnostic
from ..model import SourceLoc
from ..validate import (
    _ZIP_READ_ERRORS,
    MAX_MEMBER_BYTES,
    MAX_MEMBERS,
    MAX_TOTAL_BYTES,
    _check_entries,
    _read_member,
    _too_large,
    is_macos_debris,
)


class PackageFiles:
    """Read access to the members of one package; every problem is appended to ``diags``."""

    def __init__(self, display: str) -> None:
        self.display = display
        self.diags: list[Diagnostic] = []
        self._members: list[str] | None = None

    def where(self, member: str) -> str:
        """How diagnostics name a member."""
        raise NotImplementedError

    def loc(self, member: str, line: int = 0) -> SourceLoc:
        return SourceLoc(self.where(member), line)

    @property
    def members(self) -> list[str]:
        """Every member (regular files, macOS debris left out), sorted."""
        if self._members is None:
            self._members = self._list()
        return self._members

    def _list(self) -> list[str]:
        raise NotImplementedError

    def has(self, member: str) -> bool:
        return member in set(self.members)

    def read(self, member: str, limit: int = MAX_MEMBER_BYTES) -> bytes | None:
        """A member's bytes, or None (reported) when it is missing, too large or unreadable."""
        raise NotImplementedError

    def image(self, member: str, limit: int) -> bytes:
        """An image member's bytes; raises MediaError saying why it cannot be had (a missing or
        too large image costs the text its picture, not the import)."""
        from ..media import MediaError

        before = len(self.diags)
        data = self.read(member, limit)
        problems, self.diags[before:] = self.diags[before:], []
        if data is None:
            why = problems[0].message if problems else "it cannot be read"
            raise MediaError(why.replace("not in the package", "it is not in the package"))
        return data

    def close(self) -> None:
        pass


class ZipFiles(PackageFiles):
    def __init__(self, zf: zipfile.ZipFile, display: str) -> None:
        super().__init__(display)
        self.zf = zf
        self.infos = {i.filename: i for i in zf.infolist() if not i.filename.endswith("/")}

    def where(self, member: str) -> str:
        return f"{self.display}!{member}"

    def _list(self) -> list[str]:
        return sorted(m for m in self.infos if not is_macos_debris(m))

    def read(self, member: str, limit: int = MAX_MEMBER_BYTES) -> bytes | None:
        info = self.infos.get(member)
        if info is None:
            self.diags.append(Diagnostic(self.loc(member), "not in the package", rule="package.missing-file"))
            return None
        if info.file_size > limit:
            self.diags.append(_too_large(self.where(member), info.file_size))
            return None
        try:
            data = _read_member(self.zf, info)
        except _ZIP_READ_ERRORS as exc:
            self.diags.append(
                Diagnostic(self.loc(member), f"cannot be read: {exc}", rule="package.bad-member")
            )
            return None
        if data is None:
            self.diags.append(
                Diagnostic(self.loc(member), "inflates beyond its declared size", rule="package.too-large")
            )
        return data

    def close(self) -> None:
        self.zf.close()


class FolderFiles(PackageFiles):
    """An unpacked package: the files below ``root``."""

    def __init__(self, root: Path, display: str) -> None:
        super().__init__(display)
        self.root = root

    def where(self, member: str) -> str:
        return f"{self.display.rstrip('/')}/{member}"

    def _list(self) -> list[str]:
        found: list[str] = []
        total = 0
        for dirpath, dirnames, filenames in os.walk(self.root, followlinks=False):
            dirnames.sort()
            for name in sorted(filenames) + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
                full = Path(dirpath) / name
                rel = full.relative_to(self.root).as_posix()
                if is_macos_debris(rel):
                    continue
                st = full.lstat()
                if stat.S_ISLNK(st.st_mode):
                    self.diags.append(Diagnostic(self.loc(rel), "is a symbolic link", rule="package.symlink"))
                    continue
                if not stat.S_ISREG(st.st_mode):
                    continue
                total += st.st_size
                found.append(rel)
                if len(found) > MAX_MEMBERS:
                    self.diags.append(
                        Diagnostic(
                            SourceLoc(self.display),
                            f"more than {MAX_MEMBERS} files; that is the limit for a package",
                            rule="package.too-many",
                        )
                    )
                    return []
        if total > MAX_TOTAL_BYTES:
            self.diags.append(
                Diagnostic(
                    SourceLoc(self.display),
                    f"{total} bytes in all exceed the limit of {MAX_TOTAL_BYTES}",
                    rule="package.too-large",
                )
            )
            return []
        return sorted(found)

    def _path(self, member: str) -> Path | None:
        """The file of a member, or None when the name could leave the folder or meet a link."""
        parts = member.split("/")
        if not member or member.startswith("/") or "\\" in member or any(p in ("", ".", "..") for p in parts):
            return None
        path = self.root
        for part in parts:
            path = path / part
            if path.is_symlink():
                return None
        return path

    def read(self, member: str, limit: int = MAX_MEMBER_BYTES) -> bytes | None:
        path = self._path(member)
        if path is None:
            self.diags.append(
                Diagnostic(self.loc(member), "names a path outside the package", rule="package.unsafe-path")
            )
            return None
        try:
            st = path.stat()
            if not stat.S_ISREG(st.st_mode):
                raise FileNotFoundError
            if st.st_size > limit:
                self.diags.append(_too_large(self.where(member), st.st_size))
                return None
            with open(path, "rb") as fh:
                data = fh.read(limit + 1)
        except OSError:
            self.diags.append(Diagnostic(self.loc(member), "not in the package", rule="package.missing-file"))
            return None
        if len(data) > limit:
            self.diags.append(_too_large(self.where(member), len(data)))
            return None
        return data


def open_zip(path: Path, display: str) -> tuple[PackageFiles | None, list[Diagnostic]]:
    """A zip package, or None with the reasons it is refused (checked before anything is inflated)."""
    try:
        zf = zipfile.ZipFile(path)
    except _ZIP_READ_ERRORS as exc:
        return None, [
            Diagnostic(SourceLoc(display), f"not a readable zip file: {exc}", rule="package.bad-zip")
        ]
    refused = _check_entries(zf.infolist(), display)
    if refused:
        zf.close()
        return None, sorted(refused, key=Diagnostic.sort_key)
    return ZipFiles(zf, display), []


def open_folder(path: Path, display: str) -> PackageFiles:
    return FolderFiles(path, display)
