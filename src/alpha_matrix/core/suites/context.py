"""A suite run's context: what an audit of its bag needs besides the scenario, as the run used it.

Computed once when the suite's graph is resolved (``cli.suite.suite_graph``), from the resolved
nodes' parameters, so ``--config`` and ``--set`` are honoured (each suite's ``graph_context``, in
its scenarios module); ``suite_runner`` sends it in every ``SuiteRequest.context_json``, so the
bag carries it. An audit never reads today's config, which may have changed since the bag was
recorded (a policy edited, another L): a bag without the context its audit needs is a problem.

Each suite's context is a ``SuiteContext`` in its folder (``core/suites/<suite>/context.py``,
the suite's ``context_model`` piece); a recorded one is read back by the suite it names."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, model_validator

from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.records import canonical_json

if TYPE_CHECKING:
    from alpha_matrix.core.graph import Graph


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SuiteContext(_Strict):
    """The base of every suite's context: ``suite`` names it (each subclass fixes it)."""

    suite: str

    def describe(self) -> str:
        """One line: where the audit's settings came from."""
        raise NotImplementedError


class RecordedFile(_Strict):
    """A configuration file as a node read it: where, its content hash and its text."""

    path: str
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    text: str

    @model_validator(mode="after")
    def _hash_matches(self) -> RecordedFile:
        if hashlib.sha256(self.text.encode()).hexdigest() != self.sha256:
            raise ValueError(f"{self.path}: sha256 does not match the recorded text")
        return self

    @classmethod
    def read(cls, path: Path) -> RecordedFile:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as err:
            raise ConfigError(f"{path}: cannot read ({err.strerror})") from None
        return cls(path=shown_path(path), sha256=hashlib.sha256(text.encode()).hexdigest(), text=text)

    def write_to(self, directory: Path) -> Path:
        """The text as a file under ``directory`` (same name), for the file-based loaders."""
        out = directory / Path(self.path).name
        out.write_text(self.text, encoding="utf-8")
        return out

    def short(self) -> str:
        return f"{Path(self.path).name} sha256 {self.sha256[:12]}"


def shown_path(path: Path) -> str:
    """How a read file is named in a context: a package config file as ``config/<name>`` (so the
    context, which is hashed into the run's config hash, is the same in every checkout), any other
    file as its path."""
    from alpha_matrix.core.graph import default_config_dir

    package = default_config_dir().resolve()
    try:
        return str(Path(package.name) / path.resolve().relative_to(package))
    except (ValueError, OSError):
        return str(path)


def context_json(ctx: SuiteContext) -> str:
    return canonical_json(ctx.model_dump(mode="json"))


def node_file(graph: Graph, node: str, param: str, default_name: str) -> Path:
    """A node's file parameter as the node resolves it: empty means the package's config file."""
    from alpha_matrix.core.graph import default_config_dir

    value = graph.node(node).parameters.get(param, "")
    return Path(value) if value else default_config_dir() / default_name


__all__ = ["RecordedFile", "SuiteContext", "context_json", "node_file", "shown_path"]
