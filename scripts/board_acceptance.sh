#!/usr/bin/env bash
# The board over a fresh `make run` plus every suite run with the reference, always:continue_task
# and the embedded model (docs/board.md, "The acceptance board"). Each suite runs one shard, the
# same for the three agents, so their items pair; proximity's agents all decide every 10th frame
# (a run with another --decide-every is another config and is kept apart). One more gauge run with
# another reader setting shows a run kept apart. Then `alpha-matrix board` over all of it.
#
#   bash scripts/board_acceptance.sh [DOMAIN_ID]     (about an hour on 2 cores, the model most of it)
#
# Each suite writes a study: runs/board-<suite>.<agent> per agent (reference, always-continue_task,
# llamacpp), and `alpha-matrix board` reads every run under runs/.
set -euo pipefail
cd "$(dirname "$0")/.."
DOMAIN="${1:-61}"
AM=.venv/bin/alpha-matrix
AGENTS="reference,always:continue_task,llm"

ROS_DOMAIN_ID="$DOMAIN" make run
run_suite() {  # suite shard [extra flags...]
  local suite="$1" shard="$2"
  shift 2
  echo "== $suite --shard $shard $*"
  "$AM" suite "$suite" --agent "$AGENTS" --shard "$shard" --run-id "board-$suite" --domain-id "$DOMAIN" "$@"
}
run_suite gauge 0/40
run_suite alerts 12/17   # one scenario: the 270M model stops the robot and is asked again at every refused command (121 decisions, 21 min, on 'nominal')
run_suite confidence 0/24 --set skill_executive.max_decisions=30   # one task; the 270M model otherwise uses all 80 decisions of each
run_suite hazards 0/48
run_suite injection 0/33
run_suite refusal 0/64
run_suite ambiguity 0/64
run_suite proximity 0/42 --decide-every 10
"$AM" suite gauge --agent reference --shard 0/40 --run-id board-gauge-min-ticks-4 --domain-id "$DOMAIN" \
  --set gauge_reader.min_ticks=4
"$AM" board
