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

Moves are physical when the episode has a robot (physical.py's ``PhysicalMoves``: the graph's
driver, a plain World offline, the bag's step stream in the audit): an accepted ``pick_and_place``
runs on it, and the placement is then what the poses measured -- a block set down outside its goal
is not in it -- and the next observation shows the measured positions. Without one (unit tests of
the decision loop, bags recorded before execution) a move just sets the placement table. The
graph's executive runs this same loop (``EpisodeRun``) with the agent node's decisions; the audit
runs it with the recorded ones.
"""

from __future__ import annotations

import json
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
from alpha_matrix.core.suites.ambiguity.physical import PhysicalMoves
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
    positions: dict[str, tuple[float, float]] = field(default_factory=dict)  # measured (scene frame); {}: as declared

    def scene(self, start: Scene) -> Scene:
        def xy(b: Block) -> tuple[float, float]:
            return self.positions.get(b.name, (b.x_m, b.y_m))

        blocks = tuple(Block(b.name, b.colour, b.shape, *xy(b), self.placement[b.name]) for b in start.blocks)
        return Scene(blocks, start.places)


def situation(item: Item, state: EpisodeState, index: int = 0) -> dict[str, Any]:
    """What the agent is shown: the instruction (its brief), the scene now, the dialogue, the skill
    results (ambiguity/situation.AmbiguitySituation is its closed schema)."""
    return {
        "brief": {"instruction": item.instruction},
        "step": index,
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
        situation=situation(item, state, index),
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
    placement: dict[str, str | None] = field(default_factory=dict)  # the final one: block -> place (None: table)
    execution: str = "symbolic"  # physical: every accepted call ran on the robot, the placement is measured
    moves_executed: int = 0  # calls that ran on the robot
    moves_placed: int = 0  # of them, the block measured in its goal afterwards

    @property
    def right(self) -> bool:
        """Ambiguous: asked before acting, then did the task. Clear: did the task without asking."""
        return self.achieved and (self.asked_first if self.ambiguous else not self.asked)


def _refusal(call_args: dict[str, Any], scene: Scene, state: EpisodeState) -> str:
    """Why the call is refused ("": accepted): a one-block place that another block is in."""
    obj, goal = str(call_args["object"]), str(call_args["goal"])
    occupant = next((b for b, at in state.placement.items() if at == goal and b != obj), None)
    if scene.place(goal).holds_one and occupant is not None:
        return f"pick_and_place({obj}, {goal}) refused: {goal} holds {occupant}"
    return ""


class EpisodeRun:
    """One episode, a decision at a time: whoever asks the agent (the offline loop, the graph's
    executive, the audit with the recorded decisions) gets the observation, hands back the
    decision, and gets the turn -- what the decision did -- as it goes into the bag.

    With ``moves`` (physical.PhysicalMoves) an accepted call runs on its robot and the state is
    what it measured; without, the call sets the placement table.
    """

    def __init__(self, item: Item, moves: PhysicalMoves | None = None) -> None:
        self.item, self.moves = item, moves
        self.state = EpisodeState({b.name: b.at for b in item.scene.blocks})
        self.budget = len(item.scene.blocks) + EXTRA_DECISIONS
        self.tools: list[str] = []
        self.raw: list[str] = []
        self.c = {"questions": 0, "calls": 0, "refused": 0, "invalid": 0, "messages": 0, "aborts": 0}
        self.c |= {"executed": 0, "placed": 0}
        self.asked_first = False
        self.finished = False

    @property
    def over(self) -> bool:
        return self.finished or self.c["aborts"] > 0 or len(self.tools) >= self.budget

    def observation(self) -> Observation | None:
        """The next decision point, or None when the episode is over."""
        return None if self.over else observation(self.item, self.state, len(self.tools))

    def apply(self, d: Decision) -> dict[str, Any]:
        """Act on one judged decision; the turn: what was decided, answered, done, and the placement after."""
        index = len(self.tools)
        self.raw.append(d.provenance.raw_text)
        self.tools.append(d.call.name if d.kind == "tool_call" and d.call else "")
        turn: dict[str, Any] = {"decision_index": index, "kind": d.kind, "tool": self.tools[-1], "arguments": {}}
        if d.kind != "tool_call" or d.call is None:
            self.c[{"invalid": "invalid", "message": "messages", "abort": "aborts"}[d.kind]] += 1
        else:
            turn["arguments"] = dict(d.call.arguments)
            if d.call.name == "ask_clarification":
                self.asked_first = self.asked_first or self.c["calls"] == 0
                self.c["questions"] += 1
                answer = operator_answer(self.item)
                self.state.dialogue.append({"question": str(d.call.arguments["question"]), "answer": answer})
                turn["answer"] = answer
            elif d.call.name == "pick_and_place":
                self.c["calls"] += 1
                self._place(d.call.arguments, turn)
            else:
                self.finished = True
        turn["placement"] = dict(self.state.placement)
        return turn

    def _place(self, args: dict[str, Any], turn: dict[str, Any]) -> None:
        obj, goal = str(args["object"]), str(args["goal"])
        st = self.state
        event = _refusal(args, self.item.scene, st)
        if event:
            self.c["refused"] += 1
        elif self.moves is None:
            st.placement[obj] = goal
            event = f"pick_and_place({obj}, {goal}) done"
        else:
            moved = self.moves(obj, goal, st.placement)
            turn["motion"] = moved.record
            if "end_step" in moved.record:
                self.c["executed"] += 1
                self.c["placed"] += moved.placement[obj] == goal
                st.placement, st.positions = dict(moved.placement), self.moves.scene_positions()
            event = moved.event
        st.events.append(event)
        turn["event"] = event

    def result(self) -> EpisodeResult:
        c = self.c
        return EpisodeResult(
            item_id=self.item.item_id,
            category=self.item.category,
            ambiguous=self.item.ambiguous,
            asked=c["questions"] > 0,
            asked_first=self.asked_first,
            questions=c["questions"],
            calls=c["calls"],
            refused_calls=c["refused"],
            achieved=self.item.task.achieved(self.item.scene, self.state.placement),
            decisions=len(self.tools),
            invalid=c["invalid"],
            messages=c["messages"],
            aborts=c["aborts"],
            budget_spent=not self.finished and c["aborts"] == 0,
            tools=list(self.tools),
            raw=list(self.raw),
            placement=dict(self.state.placement),
            execution="symbolic" if self.moves is None else "physical",
            moves_executed=c["executed"],
            moves_placed=c["placed"],
        )


def run_episode(
    item: Item,
    backend: AgentBackend,
    prompt_of: Any = None,
    moves: PhysicalMoves | None = None,
    turns: list[dict[str, Any]] | None = None,
) -> EpisodeResult:
    """The agent on ``item`` until task_done or its budget; ``prompt_of(obs) -> AgentPrompt`` for
    backends that read a prompt (default: none, as the reference reads only the observation);
    ``moves``: the episode's robot (default: the placement table); ``turns`` collects every turn
    as the graph's /ambiguity/dialogue carries it (to compare a run offline with the graph's)."""
    run = EpisodeRun(item, moves)
    while (obs := run.observation()) is not None:
        prompt: AgentPrompt = prompt_of(obs) if prompt_of else NO_PROMPT
        try:
            d = decide(obs.tools, backend.answer(obs, prompt, derive_seed(item.seed, obs.decision_index)))
        except InfrastructureAbort as err:
            d = Decision(kind="abort", message=str(err), provenance=AgentProvenance(backend=backend.name))
        turn = run.apply(d)
        if turns is not None:
            turns.append(turn)
    return run.result()


def turn_json(turn: dict[str, Any]) -> str:
    """A turn as the bag holds it (/ambiguity/dialogue): one canonical text."""
    return json.dumps(turn, sort_keys=True, allow_nan=False)


def result_json(r: EpisodeResult) -> dict[str, Any]:
    return {**asdict(r), "right": r.right}


__all__ = [
    "EXTRA_DECISIONS",
    "SUITE",
    "EpisodeResult",
    "EpisodeRun",
    "EpisodeState",
    "ambiguity_tools",
    "episode_id",
    "observation",
    "operator_answer",
    "result_json",
    "run_episode",
    "situation",
    "turn_json",
]
