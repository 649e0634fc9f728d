"""Every report kind looked at as a person does: rendered in headless Chromium.

For the matrix report, each of the seven suites' reports and the comparison page (built from
synthetic records): the screenshot is written and not blank, the rendered DOM holds every image of
the page, every image file decodes (here in full, and in the browser with a size: a check page loads
them and writes ``naturalWidth``), every relative link and ``#anchor`` resolves, and nothing points
off the machine. A report (not the comparison) opens, as rendered, with its summary lines right under
its title and ends with its glossary.

No Chromium: skipped with the reason, unless ALPHA_MATRIX_REQUIRE_BROWSER=1 (CI: .ci/run installs
it), then failed. Each launch has its own --user-data-dir and process group, killed afterwards.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from matplotlib.image import imread
from report_runs import ALL_SUITE_RUNS, compare_runs

from alpha_matrix.cli.compare import cmd_compare

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
KINDS = ("matrix", *sorted(ALL_SUITE_RUNS), "compare")
LAUNCH_TIMEOUT_S = 60
WINDOW = (1280, 2400)


@pytest.fixture(scope="module")
def chromium() -> str:
    found = next((p for b in BROWSERS if (p := shutil.which(b))), None)
    if found is None:
        reason = f"no headless browser ({', '.join(BROWSERS)}) on PATH; apt-get install chromium"
        if os.environ.get("ALPHA_MATRIX_REQUIRE_BROWSER") == "1":
            pytest.fail(f"ALPHA_MATRIX_REQUIRE_BROWSER=1 but {reason}")
        pytest.skip(reason)
    return found


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory, written_reports: dict[str, Path]) -> dict[str, Path]:
    """One page of every kind, written as the commands write them (the reports: written_reports, test/conftest.py)."""
    root = tmp_path_factory.mktemp("pages")
    out = {kind: run_dir / "report.html" for kind, run_dir in written_reports.items()}
    a, b = compare_runs(root / "compare")
    assert cmd_compare(argparse.Namespace(run_a=str(a), run_b=str(b))) == 0
    out["compare"] = a / f"compare-{b.name}.html"
    return out


def _browse(browser: str, tmp: Path, *args: str) -> str:
    """One headless launch; its stdout. The whole process group goes when it returns."""
    cmd = [
        browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
        "--disable-background-networking", "--disable-breakpad", "--hide-scrollbars",
        f"--user-data-dir={tmp / 'profile'}", *args,
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=LAUNCH_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        out, err = "", f"no exit within {LAUNCH_TIMEOUT_S} s"
    finally:
        try:  # helpers (zygote, crashpad) that outlive the browser
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.communicate(timeout=10)
    assert proc.returncode == 0 and not err.startswith("no exit"), (
        f"{' '.join(cmd)}: exit {proc.returncode}: {err[-2000:]}"
    )
    return out


class _Page(HTMLParser):
    """What a page points at: image sources, link targets, and the anchors it defines."""

    def __init__(self) -> None:
        super().__init__()
        self.images: list[str] = []
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "img":
            self.images.append(a.get("src", ""))
        if tag == "a" and "href" in a:
            self.links.append(a["href"])
        self.ids |= {a[k] for k in ("id", "name") if a.get(k)}


def _parse(text: str) -> _Page:
    page = _Page()
    page.feed(text)
    return page


def _loaded_images(browser: str, page: Path, srcs: list[str], tmp: Path) -> dict[str, Any]:
    """Load each image of the page from the page's own directory in the browser: {src: [w, h] | "error"}."""
    check = page.parent / f"_images_of_{page.stem}.html"
    check.write_text(
        "<!DOCTYPE html><html><body><pre id='out'></pre><script>"
        f"const srcs = {json.dumps(srcs)}; const got = {{}};"
        "const show = () => { document.getElementById('out').textContent = JSON.stringify(got); };"
        "for (const s of srcs) { const i = new Image();"
        " i.onload = () => { got[s] = [i.naturalWidth, i.naturalHeight]; show(); };"
        " i.onerror = () => { got[s] = 'error'; show(); }; i.src = s; }"
        "show();</script></body></html>",
        encoding="utf-8",
    )
    try:
        dom = _browse(browser, tmp, "--virtual-time-budget=5000", "--dump-dom", check.as_uri())
    finally:
        check.unlink()
    start = dom.index('<pre id="out">') + len('<pre id="out">')
    return dict(json.loads(dom[start : dom.index("</pre>", start)]))


@pytest.mark.parametrize("kind", KINDS)
def test_a_report_page_renders_with_its_images_and_links(chromium, pages, kind, tmp_path) -> None:
    page = pages[kind]
    source = _parse(page.read_text(encoding="utf-8"))
    if kind != "compare":
        assert source.images, f"{kind}: a report page without its plots"

    for src in source.images + source.links:  # nothing off the machine: a report is read where it was written
        assert "://" not in src and not src.startswith("//"), f"{kind}: {src} points off the machine"
    for src in source.images:
        png = page.parent / src
        assert png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f"{kind}: {src} is not a PNG file"
        height, width = imread(png).shape[:2]  # decodes every row: a cut-short file fails here (a browser shows half)
        assert height > 0 and width > 0, f"{kind}: {src} is empty"
    for href in source.links:
        target, _, anchor = href.partition("#")
        linked = page.parent / target if target else page
        assert linked.is_file(), f"{kind}: link {href} leads nowhere"
        if anchor:
            assert anchor in _parse(linked.read_text(encoding="utf-8")).ids, f"{kind}: anchor #{anchor} not found"

    shot = tmp_path / "shot.png"
    _browse(chromium, tmp_path, f"--window-size={WINDOW[0]},{WINDOW[1]}", f"--screenshot={shot}", page.as_uri())
    pixels = imread(shot)
    assert pixels.shape[:2] == (WINDOW[1], WINDOW[0]), f"{kind}: screenshot {pixels.shape}"
    ink = (pixels[..., :3] < 0.9).any(axis=-1).mean()  # share of pixels that are not (near) white
    assert ink > 0.005 and len({tuple(p) for p in pixels[::16, ::16, :3].reshape(-1, 3)}) > 8, f"{kind}: blank page"

    dom = _browse(chromium, tmp_path, "--dump-dom", page.as_uri())
    rendered = _parse(dom)
    assert rendered.images == source.images, f"{kind}: the rendered page lost images"
    if kind != "compare":  # what was found first, the glossary last
        assert re.search(r"</h1>\s*<ul><li>Tested: (?:(?!</li>).)+</li><li>Result: (?:(?!</li>).)*\d+/\d+ = ", dom), (
            kind
        )
        assert re.search(r"<h2>Glossary</h2>\s*<table><thead><tr><th>term</th><th>meaning</th>", dom), kind
        assert "<h2>" not in dom.split("<h2>Glossary</h2>", 1)[1], f"{kind}: the glossary is not the last section"

    loaded = _loaded_images(chromium, page, source.images, tmp_path) if source.images else {}
    for src in source.images:
        size = loaded.get(src)
        assert isinstance(size, list) and size[0] > 0 and size[1] > 0, f"{kind}: {src} did not load: {size}"
