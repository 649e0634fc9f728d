"""What every report's PNG plots share: reproducible bytes, and outcome rates drawn the same way.

A PNG is a plain ``Figure`` (no pyplot state) saved at a fixed dpi without the Software
metadata, so the same records give the same bytes. ``rate_bars`` is the one way a report draws
"k of n" outcomes: the rate, its 95 % Wilson interval and the k/n it was counted from, so a
person never reads a rate without its sample size.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from alpha_matrix.core.matrix.stats import wilson


def save_png(fig: Figure, path: Path) -> None:
    fig.tight_layout()
    fig.savefig(path, dpi=110, metadata={"Software": None})


def rate_figure(labels: Sequence[str], counts: Sequence[tuple[int, int]], title: str) -> Figure:
    """Horizontal bars, one per label, of k/n with its Wilson interval and "k/n" written beside it.

    A label with n = 0 gets no bar and "no data". Labels read top to bottom in the given order.
    """
    fig = Figure(figsize=(7.5, 1.2 + 0.42 * max(1, len(labels))))
    ax = fig.add_subplot()
    rate_bars(ax, labels, counts)
    ax.set_title(title)
    return fig


def rates_png(
    suite: str, title: str, rates: tuple[Sequence[str], Sequence[tuple[int, int]]], plot_dir: Path
) -> list[tuple[str, str]]:
    """A suite's outcome-rate plot ``<suite>_rates.png`` as [(file name, alt text)]; none without outcomes."""
    labels, counts = rates
    if not labels:
        return []
    name = f"{suite}_rates.png"
    save_png(rate_figure(labels, counts, f"{title} (k/n, 95 % Wilson)"), plot_dir / name)
    return [(name, f"{title} with k/n and 95 % Wilson intervals")]


def save_rows(
    fig: Figure, ax: Axes, names: Sequence[str], path: Path, ylim: tuple[float, float], xlabel: str, title: str,
    legend_size: int = 8,
) -> bool:  # fmt: skip
    """A figure of one row per name (the first on top) labelled, its legend outside on the right, saved."""
    ax.set_yticks(range(len(names)), list(names), fontsize=8)
    ax.set_ylim(*ylim)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.legend(fontsize=legend_size, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    save_png(fig, path)
    return True


def rates_and_figure(
    suite: str,
    title: str,
    rates: tuple[Sequence[str], Sequence[tuple[int, int]]],
    plot_dir: Path,
    figure: Callable[[Path], bool],
    png: str,
    caption: str,
) -> list[tuple[str, str]]:
    """``rates_png`` and one more figure ``png`` (drawn by ``figure(path)`` when it has data)."""
    out = rates_png(suite, title, rates, plot_dir)
    if figure(plot_dir / png):
        out.append((png, caption))
    return out


def rate_bars(ax: Axes, labels: Sequence[str], counts: Sequence[tuple[int, int]]) -> None:
    ys = list(range(len(labels)))
    for y, (k, n) in zip(ys, counts, strict=True):
        if not n:
            ax.text(0.01, y, "0/0: no data", va="center", fontsize=8, color="grey")
            continue
        lo, hi = wilson(k, n)
        rate = k / n
        ax.barh(y, rate, height=0.6, color="tab:blue" if rate >= 0.5 else "tab:red", alpha=0.8)
        ax.errorbar(rate, y, xerr=[[max(0.0, rate - lo)], [max(0.0, hi - rate)]], color="black", capsize=3, linewidth=1)
        ax.text(1.02, y, f"{k}/{n}", va="center", fontsize=8)
    ax.set_yticks(ys, list(labels), fontsize=8)
    ax.set_ylim(len(labels) - 0.5, -0.5)  # first label on top
    ax.set_xlim(0, 1.12)  # room for the k/n text
    ax.set_xticks([0.0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.set_xlabel("rate (bar), 95 % Wilson interval (whisker), k/n counted")


__all__ = ["rate_bars", "rate_figure", "rates_and_figure", "rates_png", "save_png", "save_rows"]
