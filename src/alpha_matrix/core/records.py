"""Episode records: one validated, versioned JSON line per episode, append-only and idempotent.

A run directory holds ``manifest.json`` (the config hash it was made with) and
``episodes.jsonl``. Re-running an episode id never adds a second row; a line cut short by a
crash is dropped on open (that episode simply runs again); a run directory made with another
config is refused rather than mixed.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import platform
import subprocess
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path
from typing import Any, Final, Generic, Literal, Protocol, TypeVar, cast, overload

from pydantic import BaseModel, ConfigDict, ValidationError, model_serializer

from alpha_matrix.core.errors import RecordError

RECORD_SCHEMA_VERSION: Final = 2  # 2: FaultRecord.seq (faults in canonical order)
WALL_CLOCK_FIELDS = frozenset({"timing"})
# Provenance fields naming the checkout a run started from (HEAD, tracked files modified): read
# from the working tree as the run starts, so a commit or an edit between two runs changes them
# while nothing the seeds and config decide changes (``seeded_view`` leaves them out).
CHECKOUT_FIELDS = frozenset({"code_revision", "code_dirty"})
TRACKED_PACKAGES = ("alpha_matrix", "ros-rclpy", "ros-rmw-fastrtps-cpp", "pybullet", "numpy", "pydantic")

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]


def _omit_none(data: Any, key: str) -> Any:
    """A field added to a record later stays out of it while unset, so older records keep their hashes."""
    if isinstance(data, dict) and data.get(key) is None:
        data.pop(key, None)
    return data


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


R = TypeVar("R", bound=BaseModel)


class _Keyed(Protocol):
    """What a run store needs of its records (every record model has it): the episode id."""

    @property
    def episode_id(self) -> str: ...


def _episode_id(rec: BaseModel) -> str:
    return cast(_Keyed, rec).episode_id


class OutcomeRecord(_Strict):
    success: bool
    placement_error: float
    steps_used: int
    reason: str
    # The driver's episode step budget when it is not the protocol's 1260 (a real-time driver's
    # steps include waiting for the controller's results); left out of the record otherwise.
    step_budget: int | None = None

    @model_serializer(mode="wrap")
    def _without_defaults(self, handler: Any) -> Any:
        return _omit_none(handler(self), "step_budget")


class SafetyEventRecord(_Strict):
    kind: str
    key: str
    severity: str
    start_step: int
    close_step: int
    last_unsafe_step: int
    scans: int
    peak: float
    stop_requested: bool


class SafetyRecord(_Strict):
    """The safety monitor's account of the episode (None when no monitor ran)."""

    first_step: int
    last_step: int
    steps_checked: int
    raw_scans: int
    contact_threshold: float
    threshold_source: str
    window: int
    events: list[SafetyEventRecord]


class CellRecord(_Strict):
    """Where the episode sits in the fault matrix. Control cells: fault "none", intensity 0."""

    fault: str  # "none" | "F1" | "F2" | "F3" | "F4" | "F1+F2"
    intensity: float
    replicate: int


class FaultRecord(_Strict):
    """One injection, as the chaos node published it: what was asked for and what was delivered."""

    fault: str  # "F1" | "F2" | "F3" | "F4"
    step: int  # physics step it acted at (F1 the observation's, F2 the grip's end; 0: before motion, F3/F4)
    seq: int  # position in the episode's canonical order (core.faults.fault_order_key): 0, 1, ...
    requested: dict[str, float | str]
    delivered: dict[str, float | str]


class Timing(_Strict):
    """Wall-clock fields: the only ones allowed to differ between two runs of the same seed."""

    started_at: str
    wall_s: float
    plan_s: float
    execute_s: float
    llm_latency_s: float | None = None  # the generation itself, measured by the planner (replay: the original's)
    llm_eval_s: float | None = None  # completion time reported by the model server, if it reports one


class PlannerRecord(_Strict):
    """Who wrote a text arm's plan, and the model's raw text before any fault touched it.

    Its wall-clock figures (latency) live in ``Timing``; everything here is deterministic.
    """

    backend: str  # oracle | ollama | llamacpp (a replayed text keeps the original's)
    model: str
    digest: str
    prompt_tokens: int
    completion_tokens: int
    seed: int
    recorded: bool  # re-emitted from a recording (replay backend), not generated in this run
    template_sha256: str
    template_version: str
    attempts: int
    text: str


class Provenance(_Strict):
    code_revision: str
    code_dirty: bool
    config_hash: str
    packages: dict[str, str]
    python: str
    # CPU architecture (platform.machine()): outcomes are bit-identical across x86-64 CPUs, not
    # across architectures (README, "Across machines"). "unknown" in records written before it.
    machine: str = "unknown"
    # The driver node's executable when it is not the simulated bridge (arm_adapter: a ros2_control
    # arm, "external": a driver the run did not start); left out of the record otherwise.
    driver: str | None = None

    @model_serializer(mode="wrap")
    def _without_defaults(self, handler: Any) -> Any:
        return _omit_none(handler(self), "driver")


class EpisodeRecord(_Strict):
    schema_version: Literal[2] = RECORD_SCHEMA_VERSION
    run_id: str
    episode_id: str
    arm: str
    episode_index: int
    master_seed: int
    seed: int
    task: str
    object: str
    zone: Vec3
    initial_positions: dict[str, Vec3]
    plan: dict[str, Any] | None
    plan_text: str | None = None  # text arms: the raw text the executive received (after any F4)
    planner: PlannerRecord | None = None  # text arms: provenance and the planner's own text
    abort_kind: str
    abort_reason: str
    actions_completed: int
    outcome: OutcomeRecord
    final_poses: dict[str, tuple[Vec3, Quat]]
    safety: SafetyRecord | None = None
    cell: CellRecord | None = None
    faults: list[FaultRecord] = []
    provenance: Provenance
    timing: Timing


def canonical_json(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), allow_nan=False)


def deterministic_view(record: EpisodeRecord) -> dict[str, Any]:
    """The record minus wall-clock fields: equal across runs of the same seed and config from the
    same checkout (``seeded_view``: from any)."""
    return record.model_dump(mode="json", exclude=set(WALL_CLOCK_FIELDS))


def seeded_view(record: BaseModel | Mapping[str, Any]) -> dict[str, Any]:
    """What the seeds and config decide of a record (a model, or its JSON line as a dict): without
    the wall-clock fields, the run's name or the checkout the run started from (CHECKOUT_FIELDS).
    Two runs of one seed and config give equal views even when the working tree changed between
    them (a commit or an edit in a tree shared while tests run); the record keeps them all."""
    data = record.model_dump(mode="json") if isinstance(record, BaseModel) else record
    view = {k: v for k, v in data.items() if k not in WALL_CLOCK_FIELDS and k != "run_id"}
    if isinstance(prov := view.get("provenance"), Mapping):
        view["provenance"] = {k: v for k, v in prov.items() if k not in CHECKOUT_FIELDS}
    return view


def record_sha256(record: EpisodeRecord) -> str:
    return hashlib.sha256(canonical_json(deterministic_view(record)).encode()).hexdigest()


def provenance(config_hash: str, driver: str = "") -> Provenance:
    """Code revision, config hash and package versions of this process."""
    src = Path(__file__).resolve().parents[3]
    rev, dirty = "unknown", False
    try:
        rev = subprocess.run(
            ["git", "-C", str(src), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10, check=True
        ).stdout.strip()
        dirty = bool(
            subprocess.run(
                ["git", "-C", str(src), "status", "--porcelain", "--untracked-files=no"],
                capture_output=True,
                text=True,
                timeout=10,
                check=True,
            ).stdout.strip()
        )
    except (OSError, subprocess.SubprocessError):
        pass
    packages = {}
    for name in TRACKED_PACKAGES:
        try:
            packages[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            packages[name] = "not installed"
    return Provenance(
        code_revision=rev,
        code_dirty=dirty,
        config_hash=config_hash,
        packages=packages,
        python=platform.python_version(),
        machine=platform.machine() or "unknown",
        driver=driver or None,
    )


def parse_records(path: Path, raw: bytes, model: type[R]) -> dict[str, R]:
    """Complete JSONL lines -> records by episode id (first one wins); a bad line is an error."""
    records: dict[str, R] = {}
    for lineno, line in enumerate(raw.splitlines(), 1):
        try:
            rec = model.model_validate_json(line)
        except ValidationError as err:
            raise RecordError(f"{path}:{lineno}: invalid record ({err.errors()[0]['msg']})") from None
        records.setdefault(_episode_id(rec), rec)
    return records


def _check_schema(run_dir: Path, manifest: dict[str, Any], schema_version: int, fix: str) -> None:
    """A run directory holds records of one schema: another one is refused, never mixed or misread."""
    existing = manifest.get("schema_version")
    if existing != schema_version:
        raise RecordError(
            f"{run_dir} holds records of schema version {existing if existing is not None else 'unknown'}, "
            f"this alpha_matrix uses version {schema_version}: {fix}"
        )


def _schema_of(model: type[BaseModel]) -> int | None:
    field = model.model_fields.get("schema_version")
    return None if field is None else field.default


class RunStore(Generic[R]):
    """The records of one run directory (episode records by default; suites store their own model)."""

    @overload
    def __init__(self: RunStore[EpisodeRecord], run_dir: Path, config_hash: str) -> None: ...
    @overload
    def __init__(
        self, run_dir: Path, config_hash: str, model: type[R], schema_version: int = RECORD_SCHEMA_VERSION
    ) -> None: ...
    def __init__(
        self,
        run_dir: Path,
        config_hash: str,
        model: type[Any] = EpisodeRecord,  # the overloads tie it to R
        schema_version: int = RECORD_SCHEMA_VERSION,
    ) -> None:
        self.run_dir = run_dir
        self.path = run_dir / "episodes.jsonl"
        self.model: type[R] = model
        manifest = run_dir / "manifest.json"
        try:
            run_dir.mkdir(parents=True, exist_ok=True)
            if manifest.exists():
                data = json.loads(manifest.read_text())
                _check_schema(run_dir, data, schema_version, "use another run id (nothing was changed)")
                existing = data.get("config_hash")
                if existing != config_hash:
                    raise RecordError(
                        f"{run_dir} was made with config {str(existing)[:12]}, this config is {config_hash[:12]}: "
                        "use another run id (nothing was changed)"
                    )
            else:
                tmp = manifest.with_suffix(".tmp")
                tmp.write_text(canonical_json({"config_hash": config_hash, "schema_version": schema_version}))
                os.replace(tmp, manifest)
        except OSError as err:
            raise RecordError(f"{run_dir}: {err.strerror}") from None
        except json.JSONDecodeError:
            raise RecordError(f"{manifest}: not valid JSON") from None
        self.records: dict[str, R] = {}
        self._load()

    def _load(self) -> None:
        if not self.path.exists():
            return
        raw = self.path.read_bytes()
        end = raw.rfind(b"\n") + 1
        if end < len(raw):  # a line cut short by a crash: never completed, drop it
            with open(self.path, "r+b") as f:
                f.truncate(end)
            raw = raw[:end]
        self.records = parse_records(self.path, raw, self.model)

    @overload
    @staticmethod
    def read_only(run_dir: Path) -> dict[str, EpisodeRecord]: ...
    @overload
    @staticmethod
    def read_only(run_dir: Path, model: type[R]) -> dict[str, R]: ...
    @staticmethod
    def read_only(run_dir: Path, model: type[Any] = EpisodeRecord) -> dict[str, Any]:
        """The records of a run directory, without creating or repairing anything."""
        path = run_dir / "episodes.jsonl"
        if not path.exists():
            raise RecordError(f"{run_dir}: no episodes.jsonl")
        manifest, version = run_dir / "manifest.json", _schema_of(model)
        if manifest.exists() and version is not None:
            try:
                data = json.loads(manifest.read_text())
            except (OSError, json.JSONDecodeError):
                raise RecordError(f"{manifest}: not readable JSON") from None
            _check_schema(run_dir, data, version, "read it with the version that wrote it")
        raw = path.read_bytes()
        return parse_records(path, raw[: raw.rfind(b"\n") + 1], model)  # a line still being written is not one

    def __contains__(self, episode_id: str) -> bool:
        return episode_id in self.records

    def append(self, record: R) -> bool:
        """Append one record durably; False (and nothing written) if its episode is already there."""
        if _episode_id(record) in self.records:
            return False
        line = canonical_json(record.model_dump(mode="json")) + "\n"
        with open(self.path, "a", encoding="utf-8") as f:
            fcntl.flock(f, fcntl.LOCK_EX)  # parallel workers append to the same run
            try:
                f.write(line)
                f.flush()
                os.fsync(f.fileno())
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)
        self.records[_episode_id(record)] = record
        return True


def all_recorded(run_dir: Path, config_hash: str, episode_ids: list[str], model: type[Any] = EpisodeRecord) -> bool:
    """The run in ``run_dir`` was made with ``config_hash`` and holds a record of every one of
    ``episode_ids``: a command repeated on a finished run has no graph to start. Reads only;
    anything else (no run yet, another config, an unreadable file) is False, and the run proper
    reports it as it always does."""
    try:
        made_with = json.loads((run_dir / "manifest.json").read_text()).get("config_hash")
        recorded = RunStore.read_only(run_dir, model) if made_with == config_hash else {}
    except (OSError, ValueError, RecordError):
        return False
    return bool(recorded) and all(e in recorded for e in episode_ids)
