#!/usr/bin/env bash
# Records of a fixed slice of every job, for a before/after check of a change that must not move a
# record (a refactor): the matrix (a share of its cells, oracle arm; two episodes of the embedded
# LLM arm) and every suite (a share of its shipped scenarios, scripted and through the reference
# agent), into RUNS_DIR. Compare two such folders with scripts/compare_records.py.
#
#     scripts/record_slices.sh RUNS_DIR [DOMAIN_ID]
#
# About 15 minutes on 2 cores. Each job runs on DOMAIN_ID (default 77), one after another.
set -euo pipefail
out=${1:?usage: scripts/record_slices.sh RUNS_DIR [DOMAIN_ID]}
domain=${2:-77}
am=".venv/bin/alpha-matrix"
common=(--runs-dir "$out" --domain-id "$domain")
mkdir -p "$out"

"$am" run --matrix --arms oracle --shard 0/15 --run-id matrix-oracle "${common[@]}"
"$am" run --arms llm --llm-backend llamacpp --episodes 2 --run-id matrix-llm "${common[@]}"
for suite in confidence alerts proximity gauge refusal ambiguity hazards; do
    "$am" suite "$suite" --shard 0/8 --run-id "$suite-scripted" "${common[@]}"
    "$am" suite "$suite" --agent reference --shard 0/8 --run-id "$suite-reference" "${common[@]}"
done
