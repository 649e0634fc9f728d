# The two commands of the README. Both set everything up first (idempotent, fast when done).
.PHONY: setup run test bench
setup:
	bash scripts/setup.sh

run: setup
	.venv/bin/alpha-matrix run --arms oracle,oracle-text,llm --matrix

test: setup
	.venv/bin/ruff check --no-cache src test benchmarks launch scripts
	.venv/bin/ruff format --no-cache --check src test benchmarks launch scripts
	.venv/bin/python -m pytest

bench: setup
	.venv/bin/python benchmarks/bench_episode.py --episodes 20
	.venv/bin/python benchmarks/bench_episode.py --episodes 20 --safety
	.venv/bin/python benchmarks/bench_monitor.py --episodes 10
	.venv/bin/python benchmarks/bench_matrix.py
