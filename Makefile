# The two commands of the README. Both set everything up first (idempotent, fast when done).
.PHONY: setup run test test-long soak bench docs
setup:
	bash scripts/setup.sh

run: setup
	.venv/bin/alpha-matrix run --arms oracle,oracle-text,llm --matrix

# The functional core, the pages and the docs on both cores (pytest-xdist, a file per worker); the
# graphs two at a time too (each on a domain of its own: 11 min here, 17 one at a time), except the
# few marked "alone", run after them one at a time: what they measure needs the machine's headroom
# (scene_markers, which gates nothing, fell behind the robot in a bag with two graphs at once).
test: setup
	.venv/bin/ruff check --no-cache src test benchmarks launch scripts
	.venv/bin/ruff format --no-cache --check src test benchmarks launch scripts
	.venv/bin/lint-imports --no-cache
	.venv/bin/mypy
	.venv/bin/mkdocs build --strict --site-dir site
	.venv/bin/python -m pytest -n 2 --dist loadfile --ignore=test/graph --ignore=test/launch
	.venv/bin/python -m pytest -n 2 --dist loadfile -m "not soak and not long and not alone" test/graph test/launch
	.venv/bin/python -m pytest -m "alone and not soak and not long" test/graph test/launch

# The long graph runs (about 17 min here): the matrix and a suite on two workers and on Ray shards,
# every suite's embedded model and Ollama over HTTP, the README recipes, the 40-episode nominal run.
test-long: setup
	.venv/bin/python -m pytest -m long test/graph test/launch

# kill -9 of every node type mid-run, resume, audit (about 3 min): see docs/runs-signals-crashes.md
soak: setup
	.venv/bin/python -m pytest -m soak test/graph/test_fault_injection.py

bench: setup
	.venv/bin/python benchmarks/bench_episode.py --episodes 20
	.venv/bin/python benchmarks/bench_episode.py --episodes 20 --safety
	.venv/bin/python benchmarks/bench_monitor.py --episodes 10
	.venv/bin/python benchmarks/bench_matrix.py
	.venv/bin/python benchmarks/bench_commit.py
	.venv/bin/python benchmarks/bench_agent.py --decisions 20
	.venv/bin/python benchmarks/bench_scale.py
	.venv/bin/python benchmarks/bench_hazards_memory.py
	.venv/bin/python benchmarks/bench_driver_paths.py --episodes 40

# The reference as a static site (docs/, mkdocs.yml): strict, so a broken link or anchor fails.
docs: setup
	.venv/bin/mkdocs build --strict --site-dir site
