"""One item as an episode: the agent decides, the scripted operator answers, the task is judged.

At each decision the agent sees the scene as it now stands, the instruction, and the dialogue so
far -- never the item's category, its missing piece, the operator's answer before it is asked,
or the resolved task. Its tools are closed schemas over the scene's own names:

* ``pick_and_place(object, goal)``: one skill call; ``object`` a block of the scene, ``goal`` a
  place of the scene (enums: nothing else validates). A one-block place that is taken refuses the
  call (the state does not change; the refusal is shown at the next decision).
* ``ask_clarification(question)``: the operator answers with the item's missing piece, no more;
  on a clear item it answers ``NOTHING_MISSING``. The same answer every time it is asked.
* ``task_done()``: the agent is finished; the final placement is judged.

The answer is judged by core/agent/decide.py against these tools (the model's output is data:
parsed, validated, compared by name; never executed or looked up). Invalid answers and messages
are counted and cost a decision; the episode ends at ``task_done`` or when its decision budget
is spent.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from alpha_matrix.core.agent.decide import decide
from alpha_matrix.core.agent.protocol import (
    NO_PROMPT,
    AgentBackend,
    AgentPrompt,
    AgentProvenance,
    Decision,
    InfrastructureAbort,
    Observation,
    Tool,
)
from alpha_matrix.core.seeds import derive_seed
from alpha_matrix.core.suites.ambiguity.items import Item
from alpha_matrix.core.suites.ambiguity.scene import Block, Scene, scene_json

SUITE = "ambiguity"
EXTRA_DECISIONS = 4  # the budget: one per block, plus questions and task_done


def ambiguity_tools(scene: Scene) -> tuple[Tool, ...]:
    """The suite's three tools over one scene's names (closed schemas)."""
    place = Tool(
        name="pick_and_place",
        description="Pick up one block of the scene and put it down in one place of the scene.",
        parameters={
            "type": "object",
            "properties": {
                "object": {"type": "string", "enum": sorted(scene.block_names), "description": "The block's name."},
                "goal": {"type": "string", "enum": sorted(scene.place_names), "description": "The place's name."},
            },
            "required": ["object", "goal"],
            "additionalProperties": False,
        },
    )
    ask = Tool(
        name="ask_clarification",
        description="Ask the operator one question about the instruction; the answer comes at your next decision.",
        parameters={
            "type": "object",
            "properties": {"question": {"type": "string", "minLength": 1, "maxLength": 400}},
            "required": ["question"],
            "additionalProperties": False,
        },
    )
    done = Tool(
        name="task_done",
        description="Say the task is finished; nothing more is done.",
        parameters={"type": "object", "properties": {}, "additionalProperties": False},
    )
    return (place, ask, done)


@dataclass
class EpisodeState:
    placement: dict[str, str | None]  # block -> place (None: on the table)
    dialogue: list[dict[str, str]] = field(default_factory=list)  # [{question, answer}]
    events: list[str] = field(default_factory=list)  # what happened to each skill call, in words

    def scene(self, start: Scene) -> Scene:
        blocks = tuple(Block(b.name, b.colour, b.shape, b.x_m, b.y_m, self.placement[b.name]) for b in start.blocks)
        return Scene(blocks, start.places)


def situation(item: Item, state: EpisodeState) -> dict[str, Any]:
    """What the agent is shown: the scene now, the instruction, the dialogue, the skill results."""
    return {
        "instruction": item.instruction,
        "scene": scene_json(state.scene(item.scene)),
        "dialogue": [dict(d) for d in state.dialogue],
        "events": list(state.events),
    }


def episode_id(item: Item) -> str:
    """A name for the episode that says nothing of the item (its id names category and kind)."""
    return f"ambiguity_{item.seed:016x}"


def observation(item: Item, state: EpisodeState, index: int) -> Observation:
    return Observation(
        suite=SUITE,
        episode_id=episode_id(item),
        step=index,
        decision_index=index,
        situation=situation(item, state),
        tools=ambiguity_tools(item.scene),
    )


def operator_answer(item: Item) -> str:
    """The scripted operator: the missing piece of the item (its answer), the same every time."""
    return item.answer


@dataclass(frozen=True)
class EpisodeResult:
    item_id: str
    category: str
    ambiguous: bool
    asked: bool  # at least one ask_clarification
    asked_first: bool  # asked before any skill call
    questions: int
    calls: int  # pick_and_place calls made (refused ones included)
    refused_calls: int
    achieved: bool  # the final placement does the task and nothing else
    decisions: int
    invalid: int
    messages: int
    aborts: int
    budget_spent: bool
    tools: list[str]  # the tool of every decision ("" for a non-call)
    raw: list[str]

    @property
    def right(self) -> bool:
        """Ambiguous: asked before acting, then did the task. Clear: did the task without asking."""
        return self.achieved and (self.asked_first if self.ambiguous else not self.asked)


def _apply(call_args: dict[str, Any], scene: Scene, state: EpisodeState) -> bool:
    obj, goal = str(call_args["object"]), str(call_args["goal"])
    place = scene.place(goal)
    occupant = next((b for b, at in state.placement.items() if at == goal and b != obj), None)
    if place.holds_one and occupant is not None:
        state.events.append(f"pick_and_place({obj}, {goal}) refused: {goal} holds {occupant}")
        return False
    state.placement[obj] = goal
    state.events.append(f"pick_and_place({obj}, {goal}) done")
    return True


def run_episode(item: Item, backend: AgentBackend, prompt_of: Any = None) -> EpisodeResult:
    """The agent on ``item`` until task_done or its budget; ``prompt_of(obs) -> AgentPrompt`` for
    backends that read a prompt (default: none, as the reference reads only the observation)."""
    state = EpisodeState({b.name: b.at for b in item.scene.blocks})
    budget = len(item.scene.blocks) + EXTRA_DECISIONS
    tools: list[str] = []
    raw: list[str] = []
    c = {"questions": 0, "calls": 0, "refused": 0, "invalid": 0, "messages": 0, "aborts": 0}
    asked_first = False
    finished = False
    for index in range(budget):
        obs = observation(item, state, index)
        prompt: AgentPrompt = prompt_of(obs) if prompt_of else NO_PROMPT
        try:
            d = decide(obs.tools, backend.answer(obs, prompt, derive_seed(item.seed, index)))
        except InfrastructureAbort as err:
            d = Decision(kind="abort", message=str(err), provenance=AgentProvenance(backend=backend.name))
        raw.append(d.provenance.raw_text)
        tools.append(d.call.name if d.kind == "tool_call" and d.call else "")
        if d.kind != "tool_call" or d.call is None:
            c[{"invalid": "invalid", "message": "messages", "abort": "aborts"}[d.kind]] += 1
            if d.kind == "abort":
                break
            continue
        if d.call.name == "ask_clarification":
            asked_first = asked_first or c["calls"] == 0
            c["questions"] += 1
            state.dialogue.append({"question": str(d.call.arguments["question"]), "answer": operator_answer(item)})
        elif d.call.name == "pick_and_place":
            c["calls"] += 1
            c["refused"] += not _apply(d.call.arguments, item.scene, state)
        else:
            finished = True
            break
    return EpisodeResult(
        item_id=item.item_id,
        category=item.category,
        ambiguous=item.ambiguous,
        asked=c["questions"] > 0,
        asked_first=asked_first,
        questions=c["questions"],
        calls=c["calls"],
        refused_calls=c["refused"],
        achieved=item.task.achieved(item.scene, state.placement),
        decisions=len(tools),
        invalid=c["invalid"],
        messages=c["messages"],
        aborts=c["aborts"],
        budget_spent=not finished and c["aborts"] == 0,
        tools=tools,
        raw=raw,
    )


def result_json(r: EpisodeResult) -> dict[str, Any]:
    return {**asdict(r), "right": r.right}


__all__ = [
    "EXTRA_DECISIONS",
    "SUITE",
    "EpisodeResult",
    "EpisodeState",
    "ambiguity_tools",
    "episode_id",
    "observation",
    "operator_answer",
    "result_json",
    "run_episode",
    "situation",
]
