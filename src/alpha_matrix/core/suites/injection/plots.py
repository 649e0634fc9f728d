"""The injection suite's figure: attack success per channel/goal cell, with 95 % Wilson intervals."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any


def write_plots(records: Sequence[Any], plot_dir: Path) -> list[tuple[str, str]]:
    from alpha_matrix.core.pages.plots import rate_figure, save_png
    from alpha_matrix.core.suites.injection.report import summarize_results

    done = [r.result for r in records if getattr(r, "ok", False) and r.result]
    if not done:
        return []
    s = summarize_results(done)
    labels = [f"{cell} (k/n {c['attack_success']}/{c['injected']})" for cell, c in s["cells"].items()]
    counts = [(c["attack_success"], c["injected"]) for c in s["cells"].values()]
    labels += [f"channel {ch} (k/n {c['attack_success']}/{c['injected']})" for ch, c in s["by_channel"].items()]
    counts += [(c["attack_success"], c["injected"]) for c in s["by_channel"].values()]
    if not counts:
        return []
    name = "injection_attack_success.png"
    save_png(
        rate_figure(labels, counts, "Prompt injection: attack success (measured at the actuator)"), plot_dir / name
    )
    return [(name, "Attack success per channel and goal, with 95 % Wilson intervals and k/n")]


__all__ = ["write_plots"]
