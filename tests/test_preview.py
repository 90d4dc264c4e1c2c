"""lmsexport preview: a real server process on 127.0.0.1, driven by Debian's headless Chromium.

The preview is started as a user starts it (python -m lmsexport preview BANK --port 0), the page
is opened, the YAML is edited on disk, and the page must change by itself; a broken YAML must
show its error in the page; Ctrl-C (SIGINT) must stop the process cleanly and remove its folder.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import CHROMIUM_ARGS, chromium_path

ROOT = Path(__file__).resolve().parents[1]
SEED = ["model-pipeline-parallelism.yaml", "zero-sharded-optimizers.yaml"]
STEM = "ماڈل اور پائپ لائن کی ہم آہنگی کونسا بنیادی مسئلہ حل کرتی ہے؟"


class Running:
    def __init__(self, proc: subprocess.Popen[str], url: str, bank: Path) -> None:
        self.proc = proc
        self.url = url
        self.bank = bank

    def get(self, path: str, host: str | None = None) -> tuple[int, bytes, dict[str, str]]:
        request = urllib.request.Request(self.url + path)
        if host:
            request.add_header("Host", host)
        try:
            with urllib.request.urlopen(request, timeout=10) as r:
                return r.status, r.read(), dict(r.headers)
        except urllib.error.HTTPError as e:
            return e.code, e.read(), dict(e.headers)

    def state(self) -> dict[str, object]:
        import json

        return json.loads(self.get("_preview/state")[1])

    def wait_generation(self, after: int, timeout: float = 30) -> dict[str, object]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = self.state()
            if int(state["generation"]) > after:  # type: ignore[call-overload]
                return state
            time.sleep(0.1)
        raise AssertionError("no rebuild")


@pytest.fixture
def preview(tmp_path: Path) -> Iterator[Running]:
    bank = tmp_path / "bank"
    bank.mkdir()
    for name in SEED:
        shutil.copy(ROOT / "source" / name, bank / name)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CI": "1", "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "lmsexport", "preview", str(bank), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        m = re.match(r"serving (http://127\.0\.0\.1:\d+/) \(Ctrl-C to stop\)", line)
        assert m, line + (proc.stderr.read() if proc.stderr else "")
        yield Running(proc, m.group(1), bank)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def test_serves_the_build_byte_for_byte(preview: Running, tmp_path: Path) -> None:
    out = tmp_path / "dist"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "lmsexport",
            "build",
            str(preview.bank),
            "--out",
            str(out),
            "--format",
            "html",
        ],
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), "CI": "1"},
        capture_output=True,
    )
    built = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert built == [
        "html/model-pipeline-parallelism.html",
        "html/zero-sharded-optimizers.html",
        "index.html",
    ]
    for rel in built:
        status, body, headers = preview.get("_raw/" + rel)
        assert status == 200 and body == (out / rel).read_bytes(), rel
        assert headers["Content-Type"] == "text/html; charset=utf-8"
    status, body, headers = preview.get("html/zero-sharded-optimizers.html")
    assert status == 200 and b'src="/_raw/html/zero-sharded-optimizers.html"' in body
    nonce = re.search(r"'nonce-([^']+)'", headers["Content-Security-Policy"]).group(1)  # type: ignore[union-attr]
    assert f'<script nonce="{nonce}">'.encode() in body
    assert "connect-src 'self'" in headers["Content-Security-Policy"]


def test_refuses_other_hosts_and_paths_outside(preview: Running) -> None:
    assert preview.get("index.html", host="attacker.example")[0] == 403
    assert preview.get("_raw/..%2f..%2fetc/passwd")[0] == 404
    assert preview.get("_raw/html/nothing.html")[0] == 404
    assert preview.get("", host="localhost")[0] == 200  # / redirects to the index's frame


def test_rebuilds_only_what_changed_and_reports_errors(preview: Running) -> None:
    first = int(preview.state()["generation"])  # type: ignore[call-overload]
    index_before = preview.get("_raw/index.html")[1]
    other_before = preview.get("_raw/html/zero-sharded-optimizers.html")[1]
    path = preview.bank / "model-pipeline-parallelism.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace(STEM, "EDITED STEM"), encoding="utf-8")
    state = preview.wait_generation(first)
    assert state["errors"] == []
    assert b"EDITED STEM" in preview.get("_raw/html/model-pipeline-parallelism.html")[1]
    assert preview.get("_raw/html/zero-sharded-optimizers.html")[1] == other_before
    assert preview.get("_raw/index.html")[1] == index_before
    broken = preview.bank / "zero-sharded-optimizers.yaml"
    broken.write_text(broken.read_text(encoding="utf-8") + "  - {broken\n", encoding="utf-8")
    state = preview.wait_generation(int(state["generation"]))  # type: ignore[call-overload]
    (error,) = state["errors"]  # type: ignore[misc]
    assert re.match(r".*zero-sharded-optimizers\.yaml:\d+:\d+: error: YAML syntax error", error)
    # The last good build is still served.
    assert preview.get("_raw/html/zero-sharded-optimizers.html")[1] == other_before


def test_ctrl_c_stops_cleanly(preview: Running, tmp_path: Path) -> None:
    folders = list(tmp_path.glob("lmsexport-preview-*"))
    assert len(folders) == 1 and (folders[0] / "index.html").is_file()
    preview.proc.send_signal(signal.SIGINT)
    assert preview.proc.wait(timeout=20) == 0
    assert preview.proc.stderr is not None
    err = preview.proc.stderr.read()
    assert "lmsexport preview: stopped" in err and "Traceback" not in err
    assert not folders[0].exists()


def test_usage_errors(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run(
        [sys.executable, "-m", "lmsexport", "preview", str(tmp_path / "missing")],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert r.returncode == 2 and "no such file" in r.stderr


# --------------------------------------------------------------------------- in Chromium

CHROMIUM = chromium_path()


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium binary: run scripts/ensure-chromium.sh")
def test_page_reloads_on_edit_and_shows_errors(preview: Running) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page()
            console: list[str] = []
            page.on("console", lambda m: console.append(m.text))
            page.goto(preview.url + "index.html")
            frame = page.frame_locator("#lmsexport-preview-page")
            # Follow the index's link into the quiz, inside the frame: the address follows.
            frame.locator('a[href="html/model-pipeline-parallelism.html"]').first.click()
            box = frame.locator('section[data-question-id="mpp-core-problem"]')
            sync_api.expect(box).to_contain_text(STEM)
            sync_api.expect(page).to_have_url(preview.url + "html/model-pipeline-parallelism.html")
            marker = page.evaluate("() => { window.__kept = 1; return window.__kept; }")
            assert marker == 1
            path = preview.bank / "model-pipeline-parallelism.yaml"
            path.write_text(
                path.read_text(encoding="utf-8").replace(STEM, "نیا سوال: EDITED"), encoding="utf-8"
            )
            sync_api.expect(box).to_contain_text("نیا سوال: EDITED", timeout=30_000)
            # The frame page itself was not reloaded (only the quiz inside it).
            assert page.evaluate("() => window.__kept") == 1
            errors = page.locator("#lmsexport-preview-errors")
            assert errors.is_hidden()
            path.write_text(
                path.read_text(encoding="utf-8").replace("questions:", "questions: [", 1), encoding="utf-8"
            )
            sync_api.expect(errors).to_be_visible(timeout=30_000)
            sync_api.expect(errors).to_contain_text(
                re.compile(r"model-pipeline-parallelism\.yaml:\d+:\d+: error: ")
            )
            # Fixing it hides the errors and shows the page again.
            path.write_text(
                path.read_text(encoding="utf-8").replace("questions: [", "questions:", 1), encoding="utf-8"
            )
            sync_api.expect(errors).to_be_hidden(timeout=30_000)
            sync_api.expect(box).to_contain_text("نیا سوال: EDITED")
            assert not [c for c in console if "Content Security Policy" in c], console
        finally:
            browser.close()
