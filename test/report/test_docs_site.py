"""The documentation site as a reader meets it: built strict, every page rendered in headless Chromium.

The site is built the way ``make docs`` builds it (``mkdocs build --strict``, into a temporary
directory): the build must pass without a warning, and every page of ``docs/`` must be in it. Then,
for each page: nothing in it, nor in the site's style sheets, points off the machine (the theme's
Google Fonts are off in mkdocs.yml); every relative link and ``#anchor`` of the page as written and as
rendered resolves to a file and an id of the built site; the screenshot is not blank; and every
resource the browser loaded for it is a file of the built site. The pages are served over HTTP on
127.0.0.1 (the browser keeps no resource timings for file:// pages), and a probe copy of each page,
beside it, writes its ``performance`` resource entries into its DOM for the test to read.

The browser is launched as test_report_pages.py launches it (its helpers): no Chromium, skipped with
the reason unless ALPHA_MATRIX_REQUIRE_BROWSER=1; each launch has its own --user-data-dir and process
group, killed afterwards.
"""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import test_report_pages as report_pages
from matplotlib.image import imread

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = sorted(p.relative_to(DOCS).with_suffix(".html").as_posix() for p in DOCS.rglob("*.md"))
WINDOW = (1280, 1600)
PROBE_ID = "__resources_loaded"
# After load (and the theme's scripts), the page lists what it fetched in a hidden element of its DOM.
PROBE = (
    "<script>addEventListener('load', () => setTimeout(() => {"
    f" const out = document.createElement('pre'); out.id = '{PROBE_ID}'; out.hidden = true;"
    " out.textContent = JSON.stringify(performance.getEntriesByType('resource').map(e => e.name));"
    " document.body.appendChild(out); }, 500));</script>"
)
ASSET_TAGS = {"script": "src", "img": "src", "iframe": "src", "source": "src", "link": "href"}

chromium = report_pages.chromium  # the fixture: the browser's path, or the skip (or failure) with its reason


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built as `make docs` builds it, into a temporary directory."""
    out = tmp_path_factory.mktemp("site")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{log[-4000:]}"
    assert "WARNING" not in log, log[-4000:]
    return out.resolve()


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:  # keep pytest output clean
        pass


@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[str]:
    """The built site over HTTP on 127.0.0.1, as a web server would serve it: its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


class _Assets(report_pages._Page):
    """The report test's parser (images, links, ids), plus what a page makes the browser load."""

    def __init__(self) -> None:
        super().__init__()
        self.assets: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        super().handle_starttag(tag, attrs)
        a = {k: v or "" for k, v in attrs}
        if tag in ASSET_TAGS and a.get(ASSET_TAGS[tag]):
            self.assets.append(a[ASSET_TAGS[tag]])


def _parse(text: str) -> _Assets:
    page = _Assets()
    page.feed(text)
    return page


def _off_machine(ref: str) -> bool:
    return "://" in ref or ref.startswith("//")


def _unresolved(site: Path, page: Path, links: list[str]) -> list[str]:
    """The links of ``page`` whose file or #anchor is not in the built site."""
    bad = []
    for href in links:
        if href.startswith(("mailto:", "javascript:")):
            bad.append(f"{href} (not a page link)")
            continue
        target, _, anchor = href.partition("#")
        linked = (page.parent / target).resolve() if target else page
        if linked.is_dir():
            linked = linked / "index.html"
        if not linked.is_file() or not linked.is_relative_to(site.resolve()):
            bad.append(f"{href} (no such file in the site)")
        elif anchor and anchor not in _parse(linked.read_text(encoding="utf-8")).ids:
            bad.append(f"{href} (no id {anchor!r} in {linked.relative_to(site.resolve())})")
    return bad


def test_every_docs_page_is_built_and_nothing_points_off_the_machine(site: Path) -> None:
    assert "index.html" in PAGES and len(PAGES) > 20, PAGES
    missing = [p for p in PAGES if not (site / p).is_file()]
    assert not missing, f"pages of docs/ not in the built site: {missing}"
    for css in site.rglob("*.css"):
        urls = re.findall(r"url\(\s*['\"]?([^'\")]+)", css.read_text(encoding="utf-8"))
        assert not [u for u in urls if _off_machine(u)], f"{css.relative_to(site)} loads from off the machine"
    for built in site.rglob("*.html"):
        text = built.read_text(encoding="utf-8")
        assert "fonts.googleapis" not in text and "fonts.gstatic" not in text, f"{built.relative_to(site)}: web fonts"


@pytest.mark.parametrize("name", PAGES)
def test_a_docs_page_renders_and_its_links_resolve(
    chromium: str, site: Path, served: str, name: str, tmp_path: Path
) -> None:
    page = site / name
    source = _parse(page.read_text(encoding="utf-8"))
    off = [ref for ref in source.assets + source.links if _off_machine(ref)]
    assert not off, f"{name}: points off the machine: {off}"
    assert not _unresolved(site, page, source.links), f"{name}: {_unresolved(site, page, source.links)}"
    for ref in source.assets:
        if not ref.startswith("data:"):
            assert (page.parent / ref.split("#")[0].split("?")[0]).is_file(), f"{name}: asset {ref} not in the site"

    probe = page.with_name(f"_probe_{page.name}")  # beside the page, so its relative paths hold
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>", 1), encoding="utf-8")
    shot = tmp_path / "shot.png"
    try:
        dom = report_pages._browse(
            chromium,
            tmp_path,
            f"--window-size={WINDOW[0]},{WINDOW[1]}",
            "--virtual-time-budget=3000",
            f"--screenshot={shot}",
            "--dump-dom",
            served + probe.relative_to(site).as_posix(),
        )
    finally:
        probe.unlink()

    pixels = imread(shot)
    assert pixels.shape[:2] == (WINDOW[1], WINDOW[0]), f"{name}: screenshot {pixels.shape}"
    ink = (pixels[..., :3] < 0.9).any(axis=-1).mean()  # share of pixels that are not (near) white
    assert ink > 0.005 and len({tuple(p) for p in pixels[::16, ::16, :3].reshape(-1, 3)}) > 8, f"{name}: blank page"

    rendered = _parse(dom)
    assert "</article>" in dom and rendered.ids >= source.ids, f"{name}: the rendered page lost its content"
    bad = _unresolved(site, page, [h for h in rendered.links if not _off_machine(h)])
    assert not bad, f"{name}: rendered links that lead nowhere: {bad}"
    assert not [h for h in rendered.links if _off_machine(h)], f"{name}: a rendered link points off the machine"

    found = re.search(rf'<pre id="{PROBE_ID}" hidden="">(.*?)</pre>', dom, re.S)
    assert found, f"{name}: the page did not finish loading (no resource list)"
    loaded = json.loads(html.unescape(found.group(1)))
    assert loaded, f"{name}: the browser loaded no style sheet or script"
    elsewhere = [u for u in loaded if not u.startswith(served)]
    assert not elsewhere, f"{name}: loaded from outside the built site: {elsewhere}"
    absent = [u for u in loaded if not (site / u[len(served) :].split("?")[0]).is_file()]
    assert not absent, f"{name}: loaded files the site does not have: {absent}"
