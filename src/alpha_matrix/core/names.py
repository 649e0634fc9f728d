"""Run ids are names, never paths.

A run id becomes ``runs/<id>`` and ``bags/<id>``; anything that could walk out of those
directories (``..``, ``/``, an absolute path, NUL, a newline, look-alike unicode) is refused
wherever an id enters: the CLI, the node parameters, the launch file, a replay source.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic_core import PydanticCustomError

from alpha_matrix.core.errors import ConfigError

RUN_ID_MAX = 128
_RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")
# A worker's bag inside the run's bag directory: bags/<run id>/worker-<k> (alpha-matrix run --workers).
_WORKER_BAG = re.compile(r"(?P<run>[^/]+)/worker-(?:0|[1-9][0-9]{0,3})")
# A served model's name: Ollama's name[:tag] (also library/name), a hosted model id.
MODEL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}")
RULE = f"a name of [A-Za-z0-9._+-], starting with a letter or digit, at most {RUN_ID_MAX} characters"


def listed(names: Sequence[str], most: int = 5) -> str:
    """Names for a sentence: the first ``most``, then how many more."""
    shown = ", ".join(names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def _shown(value: object) -> str:
    """The offending value, escaped and cut short, so the error stays one readable line."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def run_id_problem(value: object) -> str | None:
    """Why ``value`` is not a run id (None when it is one)."""
    if not isinstance(value, str):
        return f"run id {_shown(value)} is not a string"
    if not value:
        return "run id is empty"
    if len(value) > RUN_ID_MAX:
        return f"run id {_shown(value)} is {len(value)} characters (at most {RUN_ID_MAX})"
    if not _RUN_ID.fullmatch(value):  # also refuses "." and "..": they do not start alphanumeric
        return f"run id {_shown(value)} is not {RULE} (a run id is a name, not a path)"
    return None


def is_run_id(value: object) -> bool:
    return run_id_problem(value) is None


def check_run_id(value: object, what: str = "") -> str:
    """``value`` if it is a run id, else ConfigError (prefixed with ``what``, e.g. "--run-id")."""
    problem = run_id_problem(value)
    if problem is not None:
        raise ConfigError(f"{what}: {problem}" if what else problem)
    return value  # type: ignore[return-value]


def name_part(text: str, limit: int = 40) -> str:
    """``text`` made fit to be part of a run id (a file name's stem): other characters become '-'."""
    return re.sub(r"[^A-Za-z0-9._+-]+", "-", text).strip("-.")[:limit] or "x"


def worker_bag_name(run_id: str, worker: int) -> str:
    """The recorder's run_id of worker ``worker``: its bag is bags/<run id>/worker-<k>."""
    return f"{check_run_id(run_id)}/worker-{worker}"


def bag_name_problem(value: object) -> str | None:
    """Why ``value`` is not a recorder bag name: a run id, or ``<run id>/worker-<k>``."""
    if isinstance(value, str):
        m = _WORKER_BAG.fullmatch(value)
        if m is not None:
            return run_id_problem(m["run"])
    return run_id_problem(value)


def _refuse(problem: str | None, value: str) -> str:
    if problem is not None:
        # A custom error keeps the message as is (no "Value error, " prefix): one line for the user.
        raise PydanticCustomError("run_id", problem)
    return value


def run_id_param(value: str) -> str:
    """Pydantic validator of a run_id parameter: empty (derived later) or a run id."""
    return value if value == "" else _refuse(run_id_problem(value), value)


def bag_name_param(value: str) -> str:
    """Pydantic validator of the recorder's run_id: empty, a run id, or ``<run id>/worker-<k>``."""
    return value if value == "" else _refuse(bag_name_problem(value), value)
