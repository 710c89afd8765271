"""The report page in a real browser: Debian's Chromium, headless, takes a
screenshot of it, and the page logs nothing to the console."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from openscc import cli

CHROMIUM = shutil.which("chromium")
PNG = b"\x89PNG\r\n\x1a\n"
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (scripts/install-deps.sh)")


def screenshot(page, png) -> list[str]:
    """Renders page into png; returns the page's console messages."""
    p = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        "--window-size=1280,2400", f"--screenshot={png}", "--enable-logging=stderr", "--v=0",
                        page.as_uri()], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return [line for line in p.stderr.splitlines() if ":CONSOLE" in line]


def test_console_messages_are_seen(tmp_path):
    page = tmp_path / "broken.html"
    page.write_text('<html><body><script>console.error("openscc-test")</script></body></html>')
    assert any("openscc-test" in m for m in screenshot(page, tmp_path / "broken.png"))


@pytest.mark.parametrize("which", ["native_run", "model_run"])
def test_report_renders_without_console_messages(which, request, tmp_path):
    out = tmp_path / "report"
    assert cli.main(["report", str(request.getfixturevalue(which)), "-o", str(out)]) == 0
    png = tmp_path / "shot.png"
    assert screenshot(out / "index.html", png) == []
    data = png.read_bytes()
    assert data[:8] == PNG and len(data) > 20000  # a page with figures, not a blank one
