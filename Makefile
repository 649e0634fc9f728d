# The two commands of the README. Both set everything up first (idempotent, fast when done).
.PHONY: setup run test soak bench
setup:
	bash scripts/setup.sh

run: setup
	.venv/bin/alpha-matrix run --arms oracle,oracle-text,llm --matrix

test: setup
	.venv/bin/ruff check --no-cache src test benchmarks launch scripts
	.venv/bin/ruff format --no-cache --check src test benchmarks launch scripts
	.venv/bin/lint-imports --no-cache
	.venv/bin/mypy
	.venv/bin/python -m pytest

# kill -9 of every node type mid-run, resume, audit (about 3 min): see README, "Two runs, signals and crashes"
soak: setup
	.venv/bin/python -m pytest -m soak test/graph/test_fault_injection.py

bench: setup
	.venv/bin/python benchmarks/bench_episode.py --episodes 20
	.venv/bin/python benchmarks/bench_episode.py --episodes 20 --safety
	.venv/bin/python benchmarks/bench_monitor.py --episodes 10
	.venv/bin/python benchmarks/bench_matrix.py
	.venv/bin/python benchmarks/bench_agent.py --decisions 20
	.venv/bin/python benchmarks/bench_scale.py
