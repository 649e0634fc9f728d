"""The board page (alpha-matrix board) looked at as a person does: rendered in headless Chromium.

From the real runs of test/unit/board/runs, with their reports written: the screenshot is not
blank, the rendered DOM holds every forest plot, every plot loads in the browser with a size, and
every link (each cell's run report) resolves. No Chromium: skipped as test_report_pages.py says.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from matplotlib.image import imread
from test_report_pages import WINDOW, _browse, _loaded_images, _parse, chromium  # noqa: F401 - the fixture

from alpha_matrix.cli import main
from alpha_matrix.core.matrix.report import write_report as write_matrix_report
from alpha_matrix.core.runs_index import suite_of_run
from alpha_matrix.core.suites.report import write_report as write_suite_report

STORED = Path(__file__).resolve().parents[1] / "unit" / "board" / "runs"


def test_the_board_page_renders_with_its_plots_and_links(chromium, tmp_path) -> None:  # noqa: F811
    runs = tmp_path / "runs"
    for src in sorted(p for p in STORED.iterdir() if p.is_dir()):
        shutil.copytree(src, runs / src.name)
        suite = suite_of_run(runs / src.name)
        write_matrix_report(runs / src.name) if suite is None else write_suite_report(suite, runs / src.name)
    assert main(["board", "--runs-dir", str(runs)]) == 0
    page = runs / "board" / "board.html"
    source = _parse(page.read_text(encoding="utf-8"))
    assert source.images and len(source.links) >= 5
    for href in source.images + source.links:
        assert "://" not in href and not href.startswith("//"), f"{href} points off the machine"
        assert (page.parent / href.partition("#")[0]).is_file(), f"{href} leads nowhere"

    shot = tmp_path / "shot.png"
    _browse(chromium, tmp_path, f"--window-size={WINDOW[0]},{WINDOW[1]}", f"--screenshot={shot}", page.as_uri())
    pixels = imread(shot)
    ink = (pixels[..., :3] < 0.9).any(axis=-1).mean()
    assert ink > 0.005 and len({tuple(p) for p in pixels[::16, ::16, :3].reshape(-1, 3)}) > 8, "blank page"
    rendered = _parse(_browse(chromium, tmp_path, "--dump-dom", page.as_uri()))
    assert rendered.images == source.images and rendered.links == source.links
    loaded = _loaded_images(chromium, page, source.images, tmp_path)
    for src in source.images:
        size = loaded.get(src)
        assert isinstance(size, list) and size[0] > 0 and size[1] > 0, f"{src} did not load: {size}"
