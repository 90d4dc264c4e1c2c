"""`lmsexport preview`: the HTML quizzes of a bank, served on 127.0.0.1, rebuilt and reloaded as
the source changes.

The pages are built exactly as `lmsexport build --format html` builds them (build.build_file per
source file, build.build_assessments, writers.html.render_index_of: the build's own paths) into a
temporary folder, and served from there byte for byte under ``/_raw/``. Reloading them needs a
script, and a built page's Content-Security-Policy (a <meta> element: a server header can only
add restrictions to it) allows only its own script, by hash. So the page is not touched: every
other ``*.html`` address is a small preview frame of our own, with its own CSP header (a nonce
for its script and style, ``connect-src 'self'`` for the event stream, ``frame-src 'self'``),
which shows the built page in an iframe, reloads the iframe after each rebuild, and lists the
problems of a failed rebuild (``path:line:col: error: ...``) above it. The frame follows the
iframe's navigation (index -> quiz) in the address bar.

Rebuilds are incremental: a changed YAML file is loaded and written again alone (then the
assessments and index.html, which need every quiz); any other change under a watched folder
(an image) rebuilds everything. Files are watched with watchfiles (inotify on Linux).
"""

from __future__ import annotations

import base64
import html
import json
import mimetypes
import os
import secrets
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

from .build import FileResult, build_assessments, build_file
from .errors import Diagnostic, Severity
from .model import Assessment, Quiz
from .source import SOURCE_SUFFIXES, PathError, check_ids, discover
from .writers import WriteContext

FORMATS = ("html",)


@dataclass
class Snapshot:
    """What the preview shows: a build generation and its problems."""

    generation: int = 0
    errors: list[Diagnostic] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)

    def as_json(self) -> bytes:
        return json.dumps(
            {
                "generation": self.generation,
                "errors": [d.format() for d in sorted(self.errors, key=Diagnostic.sort_key)],
                "warnings": [d.format() for d in sorted(self.warnings, key=Diagnostic.sort_key)],
            },
            ensure_ascii=False,
        ).encode("utf-8")


class Preview:
    """The bank's HTML build in a folder, kept up to date; thread-safe for the server."""

    def __init__(self, roots: Sequence[Path], out: Path, timestamp: int) -> None:
        self.roots = list(roots)
        self.out = out
        self.timestamp = timestamp
        self.results: dict[str, FileResult] = {}
        self.written: dict[str, bytes] = {}
        self.state = Snapshot()
        self.changed = threading.Condition()
        self.stopping = False

    # ------------------------------------------------------------------ building

    def rebuild(self, changed: Iterable[Path] | None = None) -> Snapshot:
        """Rebuild what changed (None or a non-source path: everything); return the new state."""
        try:
            sources = discover(self.roots)
        except PathError as e:
            from .model import SourceLoc

            return self._publish(
                [Diagnostic(SourceLoc(str(e).split(":")[0]), str(e), rule="preview.path")], []
            )
        names = [p.as_posix() for p in sources]
        stale = None if changed is None else {Path(p).resolve() for p in changed}
        for name in list(self.results):
            if name not in names:
                del self.results[name]
        for p in sources:
            name = p.as_posix()
            if name not in self.results or stale is None or p.resolve() in stale:
                self.results[name] = _build_file(name, self.timestamp)
        try:
            return self._assemble(sources)
        except Exception as e:  # a writer's bug: say so in the page, keep serving
            return self._publish([_crash(self.roots[0].as_posix(), e)], [])

    def _assemble(self, sources: list[Path]) -> Snapshot:
        results = [self.results[p.as_posix()] for p in sources]
        errors: list[Diagnostic] = [d for r in results for d in r.source_errors]
        warnings: list[Diagnostic] = [d for r in results for d in r.warnings]
        check_ids([i for r in results for i in r.ids], errors)
        errors += [d for r in results for d in r.errors]
        if errors:
            return self._publish(errors, warnings)
        files: dict[str, bytes] = {}
        for r in results:
            files.update(r.files)
        recipes: list[Assessment] = [r.assessment for r in results if r.assessment is not None]
        kept: dict[str, Quiz] = {r.path: r.full for r in results if r.full is not None}
        resolved: list[Assessment] = []
        if recipes:
            resolved, out, writer_errors = build_assessments(
                recipes, sources, kept, FORMATS, self.timestamp, errors
            )
            errors += writer_errors
            warnings += out.warnings
            files.update(out.files)
        if errors:
            return self._publish(errors, warnings)
        from .writers.html import render_index_of

        headers = sorted(
            ((r.quiz, r.n_questions) for r in results if r.quiz is not None), key=lambda h: h[0].id
        )
        ctx = WriteContext(formats=FORMATS, timestamp=self.timestamp)
        files["index.html"] = render_index_of(headers, ctx, resolved).encode("utf-8")
        self._write(files)
        return self._publish([], warnings)

    def _write(self, files: dict[str, bytes]) -> None:
        """Bring the folder to exactly these files, writing only what changed (each file is
        replaced atomically, so a page being served is never half written)."""
        for rel in sorted(set(self.written) - set(files)):
            (self.out / rel).unlink(missing_ok=True)
        for rel, data in sorted(files.items()):
            if self.written.get(rel) == data:
                continue
            target = self.out / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(target.name + ".tmp")
            tmp.write_bytes(data)
            os.replace(tmp, target)
        self.written = dict(files)

    def _publish(self, errors: list[Diagnostic], warnings: list[Diagnostic]) -> Snapshot:
        with self.changed:
            self.state = Snapshot(self.state.generation + 1, errors, warnings)
            self.changed.notify_all()
            return self.state

    def wait(self, generation: int, timeout: float) -> Snapshot:
        """The state once its generation differs from ``generation`` (or after timeout)."""
        with self.changed:
            self.changed.wait_for(lambda: self.state.generation != generation or self.stopping, timeout)
            return self.state

    def stop(self) -> None:
        with self.changed:
            self.stopping = True
            self.changed.notify_all()

    # ------------------------------------------------------------------ watching

    def watch(
        self, stop: threading.Event, report: Callable[[Snapshot], None], ready: Callable[[], None]
    ) -> None:
        """Rebuild on every change under the roots until stop is set; ``ready()`` is called once
        the watcher is listening (a change made before that moment is caught up with then)."""
        from watchfiles import watch

        folders = sorted({(p if p.is_dir() else p.parent).resolve() for p in self.roots})
        built_at = {name: _mtime(name) for name in self.results}
        listening = False
        for changes in watch(
            *folders,
            stop_event=stop,
            debounce=200,
            step=50,
            rust_timeout=300,
            yield_on_timeout=True,  # an empty batch when idle: how we learn the watcher is running
            raise_interrupt=False,
        ):
            if not listening:
                listening = True
                missed = [Path(n) for n in self.results if _mtime(n) != built_at.get(n)]
                if missed or _discovered(self.roots) != set(self.results):
                    report(self.rebuild(None))
                ready()
            paths = [Path(p) for _, p in changes]
            if not paths:
                continue
            if all(_ignorable(p) for p in paths):
                continue
            only_sources = all(p.suffix in SOURCE_SUFFIXES for p in paths)
            report(self.rebuild(paths if only_sources else None))


def _mtime(name: str) -> int | None:
    try:
        return os.stat(name).st_mtime_ns
    except OSError:
        return None


def _discovered(roots: Sequence[Path]) -> set[str]:
    try:
        return {p.as_posix() for p in discover(roots)}
    except PathError:
        return set()


def _build_file(name: str, timestamp: int) -> FileResult:
    try:
        return build_file(name, FORMATS, timestamp, keep=True)
    except Exception as e:  # a writer's bug: say so in the page, keep serving
        return FileResult(name, 0, errors=[_crash(name, e)])


def _crash(path: str, e: Exception) -> Diagnostic:
    from .model import SourceLoc

    return Diagnostic(
        SourceLoc(path),
        f"lmsexport failed building this file: {type(e).__name__}: {e}",
        rule="preview.internal-error",
        hint="this is a bug of lmsexport, not of the file: please report it with the file",
    )


def _ignorable(path: Path) -> bool:
    """Editor and lmsexport debris: swap and backup files, dot files (a build's staging folder)."""
    name = path.name
    return name.startswith(".") or name.endswith(("~", ".swp", ".swx", ".tmp"))


# --------------------------------------------------------------------------- the server

_FRAME = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>lmsexport preview: {title}</title>
<style nonce="{nonce}">
html, body {{ margin: 0; height: 100%; }}
body {{ display: flex; flex-direction: column; font: 14px system-ui, sans-serif; }}
#lmsexport-preview-errors {{ background: #fff0f0; color: #6b0000; border-bottom: 2px solid #c00;
  padding: .5rem 1rem; max-height: 40vh; overflow: auto; }}
#lmsexport-preview-errors[hidden] {{ display: none; }}
#lmsexport-preview-errors pre {{ margin: .25rem 0 0; white-space: pre-wrap; direction: ltr;
  unicode-bidi: plaintext; font: 13px ui-monospace, monospace; }}
iframe {{ flex: 1; border: 0; width: 100%; }}
</style></head>
<body>
<section id="lmsexport-preview-errors" role="alert" hidden>
<strong>lmsexport preview: the last change did not build</strong> (the page below is the last good build)
<pre></pre></section>
<iframe id="lmsexport-preview-page" title="{title}" src="/_raw/{path}"></iframe>
<script nonce="{nonce}">
(function () {{
  "use strict";
  var frame = document.getElementById("lmsexport-preview-page");
  var panel = document.getElementById("lmsexport-preview-errors");
  var list = panel.querySelector("pre");
  var generation = null;
  function show(state) {{
    if (state.errors.length) {{
      list.textContent = state.errors.join("\\n");
      panel.hidden = false;
    }} else {{
      panel.hidden = true;
      list.textContent = "";
    }}
    if (generation !== null && state.generation !== generation && !state.errors.length) {{
      frame.contentWindow.location.reload();
    }}
    generation = state.generation;
  }}
  frame.addEventListener("load", function () {{
    try {{
      var path = frame.contentWindow.location.pathname;
      if (path.indexOf("/_raw/") === 0) {{
        history.replaceState(null, "", path.slice(5) + frame.contentWindow.location.hash);
        document.title = "lmsexport preview: " + frame.contentWindow.document.title;
      }}
    }} catch (e) {{ /* another origin: leave the address alone */ }}
  }});
  var events = new EventSource("/_preview/events");
  events.addEventListener("build", function (e) {{ show(JSON.parse(e.data)); }});
}})();
</script>
</body></html>
"""


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    preview: Preview


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass  # the terminal shows builds and problems, not every request

    def _host_ok(self) -> bool:
        # A page on another site may point a DNS name at 127.0.0.1 (DNS rebinding): only
        # requests naming this server as localhost or 127.0.0.1 are answered.
        host = (self.headers.get("Host") or "").rsplit(":", 1)[0].strip("[]").lower()
        return host in ("127.0.0.1", "localhost")

    def _send(self, status: int, body: bytes, content_type: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_HEAD(self) -> None:  # noqa: N802 - http.server's naming
        self.do_GET()

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        if not self._host_ok():
            self._send(HTTPStatus.FORBIDDEN, b"forbidden host\n", "text/plain; charset=utf-8")
            return
        path = unquote(urlsplit(self.path).path)
        preview = self.server.preview
        if path == "/_preview/events":
            self._events()
        elif path == "/_preview/state":
            self._send(HTTPStatus.OK, preview.state.as_json(), "application/json")
        elif path.startswith("/_raw/"):
            self._raw(path[len("/_raw/") :])
        elif path == "/":
            self._send(HTTPStatus.FOUND, b"", "text/plain", {"Location": "/index.html"})
        elif path.endswith(".html"):
            self._frame(path.lstrip("/"))
        else:
            self._send(HTTPStatus.FOUND, b"", "text/plain", {"Location": "/_raw" + path})

    def _raw(self, rel: str) -> None:
        out = self.server.preview.out
        target = (out / rel).resolve()
        if ".." in rel.split("/") or not target.is_relative_to(out.resolve()) or not target.is_file():
            self._send(HTTPStatus.NOT_FOUND, b"not built\n", "text/plain; charset=utf-8")
            return
        kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        if kind.startswith("text/") or kind in ("image/svg+xml", "application/javascript"):
            kind += "; charset=utf-8"
        self._send(HTTPStatus.OK, target.read_bytes(), kind)

    def _frame(self, rel: str) -> None:
        nonce = base64.b64encode(secrets.token_bytes(16)).decode("ascii")
        body = _FRAME.format(nonce=nonce, path=html.escape(rel, quote=True), title=html.escape(rel))
        csp = (
            f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; "
            "connect-src 'self'; frame-src 'self'; base-uri 'none'; form-action 'none'"
        )
        self._send(
            HTTPStatus.OK, body.encode("utf-8"), "text/html; charset=utf-8", {"Content-Security-Policy": csp}
        )

    def _events(self) -> None:
        """Server-sent events: the state now, then after every rebuild; a comment every 15 s
        keeps the connection open through proxies."""
        preview = self.server.preview
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        state = preview.state
        try:
            self.wfile.write(b"event: build\ndata: " + state.as_json() + b"\n\n")
            self.wfile.flush()
            while not preview.stopping:
                nxt = preview.wait(state.generation, 15.0)
                if preview.stopping:
                    break
                if nxt.generation == state.generation:
                    self.wfile.write(b": keep-alive\n\n")
                else:
                    self.wfile.write(b"event: build\ndata: " + nxt.as_json() + b"\n\n")
                    state = nxt
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            return


def serve(preview: Preview, port: int) -> _Server:
    """Start serving on 127.0.0.1:port (0: any free port) in a background thread."""
    server = _Server(("127.0.0.1", port), _Handler)
    server.preview = preview
    threading.Thread(target=server.serve_forever, name="lmsexport-preview", daemon=True).start()
    return server


def temporary_folder() -> Path:
    return Path(tempfile.mkdtemp(prefix="lmsexport-preview-"))


def remove(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)


def errors_of(state: Snapshot) -> list[Diagnostic]:
    return [d for d in state.errors if d.severity is Severity.ERROR]
