"""What a user sets for a run, from the command line or as `ros2 launch` arguments, turned into
the graph's parameter overrides in one place, so both launchers accept and refuse the same."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from alpha_matrix.core.config import MAX_SHARDS
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.matrix.cells import parse_cell_fault, validate_intensity
from alpha_matrix.core.names import check_run_id


class RunOptions(BaseModel):
    """One run's options; None leaves the config file's value."""

    model_config = ConfigDict(extra="forbid")

    episodes: int | None = Field(None, ge=1)
    first: int | None = Field(None, ge=0)
    seed: int | None = None
    run_id: str | None = None
    runs_dir: str | None = None
    bags_dir: str | None = None
    arms: str | None = None  # comma-separated
    matrix: bool = False
    no_faults: bool = False
    fault: str | None = None
    intensity: float | None = None
    task_variant: Literal["open_loop", "closed_loop"] | None = None
    llm_backend: Literal["auto", "ollama", "openai", "llamacpp", "replay"] | None = None
    replay_from: str | None = None
    shard: str | None = Field(None, pattern=r"^[0-9]{1,2}/[0-9]{1,2}$")  # "K/N": episode indices i with i mod N == K

    @classmethod
    def parse(cls, values: dict[str, Any], style: Literal["cli", "launch"] = "cli") -> RunOptions:
        """From the given values (None or "" = not given; launch arguments are text), or one
        ConfigError naming the option as the user spelled it."""
        given = {k: v.strip() if isinstance(v, str) else v for k, v in values.items()}
        given = {k: v for k, v in given.items() if v is not None and v != ""}
        try:
            return cls.model_validate(given)
        except ValidationError as err:
            first = err.errors()[0]
            name = str(first["loc"][0]) if first["loc"] else ""
            value = str(given.get(name, ""))[:60]
            spelled = f"{name}:={value}" if style == "launch" else f"{option_name(name, style)} {value!r}"
            raise ConfigError(f"{spelled}: {first['msg']}") from None


def parse_shard(text: str, option: str = "--shard") -> tuple[int, int]:
    """ "K/N" -> (K, N): one share of a run, the indices i with i mod N == K; or one ConfigError."""
    k, _, n = text.strip().partition("/")
    if not (k.isdigit() and n.isdigit() and 0 <= int(k) < int(n) <= MAX_SHARDS):
        raise ConfigError(f"{option} {text!r}: K/N needs 0 <= K < N <= {MAX_SHARDS}")
    return int(k), int(n)


def option_name(name: str, style: Literal["cli", "launch"]) -> str:
    """How the user spelled an option: --run-id on the command line, run_id for ros2 launch."""
    return f"--{name.replace('_', '-')}" if style == "cli" else name


def run_overrides(
    o: RunOptions, style: Literal["cli", "launch"] = "cli"
) -> tuple[dict[str, dict[str, Any]], tuple[str, ...]]:
    """The graph's overrides per node and the nodes left out, or ConfigError naming the option."""
    runner: dict[str, Any] = {}
    exclude: tuple[str, ...] = ()
    no_faults = option_name("no_faults", style)
    if o.run_id is not None:
        runner["run_id"] = check_run_id(o.run_id, option_name("run_id", style))
    if o.arms is not None:
        runner["arms"] = [a.strip() for a in o.arms.split(",") if a.strip()]
    if o.matrix:
        runner["matrix"] = True
    if o.no_faults:
        if o.matrix:
            raise ConfigError(f"{option_name('matrix', style)} needs the chaos node; drop {no_faults}")
        exclude, runner["chaos"] = ("chaos",), False
    for option, param in (
        ("episodes", "episodes"),
        ("runs_dir", "runs_dir"),
        ("seed", "master_seed"),
        ("first", "first_episode"),
        ("task_variant", "task_variant"),
    ):
        if (value := getattr(o, option)) is not None:
            runner[param] = value
    if o.shard is not None:
        runner["shard_index"], runner["shard_count"] = parse_shard(o.shard, option_name("shard", style))
    if o.fault is not None:
        runner["fault"] = parse_cell_fault(o.fault)
    if o.intensity is not None:
        runner["intensity"] = validate_intensity(o.intensity)
    if runner.get("fault", "none") != "none" and o.no_faults:
        raise ConfigError(f"{option_name('fault', style)} needs the chaos node; drop {no_faults}")
    overrides: dict[str, dict[str, Any]] = {"episode_runner": runner} if runner else {}
    if o.bags_dir is not None:
        overrides["recorder"] = {"bags_dir": o.bags_dir}
    if o.replay_from is not None:
        overrides["llm_planner"] = {"replay_from": o.replay_from, "backend": "replay"}
    if o.llm_backend is not None:
        overrides.setdefault("llm_planner", {})["backend"] = o.llm_backend
    return overrides, exclude
