"""Benchmark: plan latency and tokens/s per LLM backend available on this machine.

Renders the real prompt for the observed scenes of matrix episodes (World reset + settle, no
ROS) and times one generation per scene through the planner core, exactly as the node does.
llamacpp (embedded Gemma 3 270M) always runs; ollama only when a daemon answers at
$OLLAMA_HOST (default http://127.0.0.1:11434) with the configured model pulled. Also times the
same model with no grammar, to show what schema-constrained decoding costs.

usage: python benchmarks/bench_llm.py [--plans N] [--ollama-model llama3]
"""

from __future__ import annotations

import argparse
import statistics
import time

from alpha_matrix.core.backends.ollama import ollama_available
from alpha_matrix.core.graph import default_config_dir
from alpha_matrix.core.matrix.cells import episode_seed
from alpha_matrix.core.outcome import SETTLE_STEPS, ZONE
from alpha_matrix.core.planning.llm_planner import LLMPlanner, build_backend, load_template
from alpha_matrix.core.planning.params import LLMPlannerParams
from alpha_matrix.core.sim.world import World

TASK = "pick the red block and place it in the zone"


def scenes(n: int) -> list[dict[str, tuple[float, float, float]]]:
    out = []
    with World() as world:
        for i in range(n):
            world.reset(episode_seed(42, i))
            world.start_hold(SETTLE_STEPS)
            while world.busy:
                world.step()
            out.append({name: pose[0] for name, pose in world.object_poses().items()})
    return out


def bench(label: str, params: LLMPlannerParams, observed: list[dict]) -> None:
    t0 = time.perf_counter()
    backend = build_backend(params)
    load_s = time.perf_counter() - t0
    planner = LLMPlanner(backend, load_template(default_config_dir() / params.prompt))
    lat, prompt_tok, completion_tok = [], [], []
    for i, scene in enumerate(observed):
        reply = planner.plan_text(f"llm-{i:04d}", TASK, scene, ZONE, episode_seed(42, i))
        lat.append(reply.latency_s)
        prompt_tok.append(reply.prompt_tokens)
        completion_tok.append(reply.completion_tokens)
    model = getattr(backend, "model", "")
    print(
        f"{label:<22} {model:<26} load {load_s:5.2f} s | plan latency median {statistics.median(lat):6.2f} s, "
        f"max {max(lat):6.2f} s | tokens prompt {statistics.median(prompt_tok):.0f}, "
        f"completion {statistics.median(completion_tok):.0f} (median) | "
        f"{sum(completion_tok) / sum(lat):5.1f} completion tokens/s"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--plans", type=int, default=5)
    ap.add_argument("--ollama-model", default="llama3")
    args = ap.parse_args()
    observed = scenes(args.plans)
    print(f"{args.plans} plans per backend, prompt {LLMPlannerParams().prompt}, temperature 0")
    bench("llamacpp (schema)", LLMPlannerParams(backend="llamacpp"), observed)
    free = build_backend(LLMPlannerParams(backend="llamacpp"))
    t0 = time.perf_counter()
    tokens = 0
    planner = LLMPlanner(free, load_template(default_config_dir() / LLMPlannerParams().prompt))
    planner.schema = {}  # no grammar: what the constraint costs (the text is then not the planner's)
    for i, scene in enumerate(observed):
        tokens += planner.plan_text(f"x-{i}", TASK, scene, ZONE, episode_seed(42, i)).completion_tokens
    print(f"{'llamacpp (no grammar)':<22} {free.model:<26} {tokens / (time.perf_counter() - t0):5.1f} tokens/s")
    if ollama_available(""):
        bench(
            f"ollama ({args.ollama_model})",
            LLMPlannerParams(backend="ollama", ollama_model=args.ollama_model),
            observed,
        )
    else:
        print("ollama                 not measured: no daemon answers at $OLLAMA_HOST on this machine")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
