from collections import Counter

import pytest

from alpha_matrix.core import seeds
from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.matrix.cells import (
    Cell,
    arm_family,
    arm_model,
    episode_seed,
    is_text_arm,
    matrix_cells,
    model_arm,
    parse_arms,
    parse_cell_fault,
    shard,
    validate_intensity,
)
from alpha_matrix.core.records import CellRecord


def test_matrix_composition():
    cells = matrix_cells()
    assert len(cells) == 75
    assert len(set(cells)) == 75
    by_cell = Counter((c.fault, c.intensity) for c in cells)
    assert by_cell[("none", 0.0)] == 10
    for fault in ("F1", "F2", "F3", "F4"):
        for intensity in (0.33, 0.66, 1.0):
            assert by_cell[(fault, intensity)] == 5
    assert by_cell[("F1+F2", 0.66)] == 5
    assert sum(by_cell.values()) == 75 and len(by_cell) == 1 + 12 + 1


def test_matrix_order_is_fixed():
    cells = matrix_cells()
    assert cells == matrix_cells()
    assert cells[0] == Cell("none", 0.0, 0) and cells[9] == Cell("none", 0.0, 9)
    assert cells[10] == Cell("F1", 0.33, 0) and cells[14] == Cell("F1", 0.33, 4) and cells[15] == Cell("F1", 0.66, 0)
    assert cells[25] == Cell("F2", 0.33, 0) and cells[55] == Cell("F4", 0.33, 0)
    assert cells[70] == Cell("F1+F2", 0.66, 0) and cells[74] == Cell("F1+F2", 0.66, 4)


def test_cell_faults_and_record():
    assert Cell("none", 0.0, 0).faults == ()
    assert Cell("F3", 1.0, 2).faults == ("F3",)
    assert Cell("F1+F2", 0.66, 0).faults == ("F1", "F2")
    assert Cell("F1", 0.33, 4).record() == CellRecord(fault="F1", intensity=0.33, replicate=4)
    with pytest.raises(AttributeError):
        Cell("F1", 0.33, 0).fault = "F2"  # frozen


def test_episode_seed_depends_on_index_only():
    assert episode_seed(42, 5) == seeds.derive_seed(42, "episode", 5)
    assert len({episode_seed(42, i) for i in range(75)}) == 75
    assert episode_seed(42, 5) != episode_seed(43, 5)


def test_parse_arms():
    known = {"oracle", "oracle-text", "llm"}
    assert parse_arms(["oracle", " oracle-text"], known) == ["oracle", "oracle-text"]
    # Several models in one run: llm:<model> arms, each its own arm, paired with the others by seed.
    many = ["oracle", "llm", "llm:llama3.1", "llm:qwen2.5:7b", "llm:library/mistral"]
    assert parse_arms(many) == many
    assert [arm_family(a) for a in many] == ["oracle", "llm", "llm", "llm", "llm"]
    assert [arm_model(a) for a in many] == ["", "", "llama3.1", "qwen2.5:7b", "library/mistral"]
    assert [is_text_arm(a) for a in many] == [False, True, True, True, True]
    assert [model_arm(arm_model(a)) for a in many[1:]] == many[1:]  # the arm a planner's model names
    for names, match in [
        (["oracle", "gpt"], "unknown arm 'gpt' \\(known: llm, oracle, oracle-text, llm:<model>\\)"),
        (["oracle", "oracle"], "given twice"),
        (["llm:a", "llm:a"], "given twice"),
        (["oracle-text:x"], "unknown arm 'oracle-text:x'"),
        (["llm:../../etc"], "not a model name"),
        (["llm:"], "'' is not a model name"),
        (["llm:a b"], "not a model name"),
        ([], "no arm"),
    ]:
        with pytest.raises(ValueError, match=match) as err:
            parse_arms(names, known)
        assert isinstance(err.value, AlphaMatrixError) and "\n" not in str(err.value)


def test_validate_intensity_and_fault_names():
    assert validate_intensity(0.66) == 0.66
    with pytest.raises(ValueError, match="outside \\[0, 1\\]"):
        validate_intensity(1.5)
    assert parse_cell_fault("F1+F2") == "F1+F2"
    with pytest.raises(ValueError, match="unknown fault 'F5'"):
        parse_cell_fault("F5")


@pytest.mark.parametrize("workers", [1, 2, 3, 4, 7, 75, 100])
def test_shard_covers_every_index_exactly_once(workers):
    cells = matrix_cells()
    parts = [shard(cells, workers, w) for w in range(workers)]
    flat = [i for part in parts for i in part]
    assert sorted(flat) == list(range(75))
    assert len(flat) == len(set(flat))
    assert parts == [shard(cells, workers, w) for w in range(workers)]
    assert max(map(len, parts)) - min(map(len, parts)) <= 1


def test_shard_round_robin_and_errors():
    cells = matrix_cells()
    assert shard(cells, 2, 0)[:3] == [0, 2, 4] and shard(cells, 2, 1)[:3] == [1, 3, 5]
    with pytest.raises(ValueError, match="workers"):
        shard(cells, 0, 0)
    with pytest.raises(ValueError, match="worker must be in"):
        shard(cells, 2, 2)
