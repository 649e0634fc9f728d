"""The scenario file: the shipped one loads; every problem is one ConfigError line naming the key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.suites.ambiguity.items import CATEGORIES
from alpha_matrix.core.suites.ambiguity.scenarios import describe, load_ambiguity_scenarios, scenario_requests

SHIPPED = Path(__file__).resolve().parents[4] / "config" / "scenarios" / "ambiguity.yaml"


def _base() -> dict:
    return yaml.safe_load(SHIPPED.read_text())


def _write(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "ambiguity.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_shipped_file_has_every_category_twenty_times_or_more(shipped) -> None:
    counts = describe(shipped)
    assert set(counts) == set(CATEGORIES)
    assert all(k["clear"] == k["ambiguous"] >= 20 for k in counts.values())


def test_requests_carry_the_item_and_its_seed(shipped) -> None:
    reqs = scenario_requests(SHIPPED)
    assert [r.name for r in reqs] == [it.item_id for it in shipped.items]
    first = json.loads(reqs[0].scenario_json)
    assert reqs[0].seed == first["seed"] == shipped.items[0].seed and first["generator_seed"] == shipped.seed


def _hand(data: dict) -> dict:
    return data["pairs"][0]


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.update(colour_scheme="x"), r"colour_scheme: unknown key"),
        (lambda d: d.update(pairs_per_category=5), r"pairs_per_category: .*greater than or equal to 20"),
        (lambda d: d.update(categories=["omitted_goal", "telepathy"]), r"categories\.1: unknown category 'telepathy'"),
        (lambda d: d.update(categories=["omitted_goal", "omitted_goal"]), r"categories: a category is listed twice"),
        (lambda d: _hand(d).update(category="mind_reading"), r"pairs\.0: unknown category 'mind_reading'"),
        (lambda d: _hand(d).update(missing=["mood"]), r"pairs\.0: missing: unknown field 'mood'"),
        (lambda d: _hand(d).update(flavour="x"), r"pairs\.0\.flavour: unknown key"),
        (
            lambda d: _hand(d)["task"][0].update(goal="zone_z"),
            r"pairs\.0: task goal 'zone_z' is not a place of the scene",
        ),
        (lambda d: _hand(d)["task"][0].update(blocks=["block_9"]), r"pairs\.0: task names block 'block_9'"),
        (
            lambda d: _hand(d)["scene"]["blocks"][0].update(at="slot_7"),
            r"pairs\.0: block block_1 is in 'slot_7', which is not a place",
        ),
        (
            lambda d: _hand(d)["scene"]["blocks"][0].update(colour="mauve"),
            r"pairs\.0: block block_1: mauve cube is not in the vocabulary",
        ),
        (
            lambda d: _hand(d)["scene"]["places"].append(
                {"name": "pad_x", "kind": "pad", "x_m": 0, "y_m": 0, "relation": "left of", "anchor": "red_bin"}
            ),
            r"pairs\.0: pad pad_x: needs a relation",
        ),
        (lambda d: _hand(d)["scene"]["places"][1].update(kind="shelf"), r"pairs\.0\.scene\.places\.1\.kind"),
        (
            lambda d: _hand(d).update(name="omitted_goal_03"),
            r"pairs\.0\.name: 'omitted_goal_03' is already a pair's name",
        ),
        (lambda d: d["pairs"].append(dict(_hand(d))), r"pairs\.6\.name: 'hand_goal_between_bin_and_tray' is already"),
        (lambda d: d.update(families=["templates", "pidgin"]), r"families\.1: unknown family 'pidgin'"),
        (lambda d: d.update(families=["paraphrase", "paraphrase"]), r"families: a family is listed twice"),
        (lambda d: _hand(d).update(family="pidgin"), r"pairs\.0: unknown family 'pidgin'"),
    ],
)
def test_one_line_errors(tmp_path: Path, edit, message: str) -> None:
    data = _base()
    data["pairs_per_category"] = 20
    edit(data)
    with pytest.raises(ConfigError, match=message) as err:
        load_ambiguity_scenarios(_write(tmp_path, data))
    assert "\n" not in str(err.value) and str(err.value).startswith(str(tmp_path))


def test_a_subset_of_categories(tmp_path: Path) -> None:
    data = {**_base(), "categories": ["vague_quantity"], "pairs": []}
    suite = load_ambiguity_scenarios(_write(tmp_path, data))
    assert {it.category for it in suite.items} == {"vague_quantity"} and len(suite.items) == 80  # two families
    one = load_ambiguity_scenarios(_write(tmp_path, {**data, "families": ["paraphrase"]}))
    assert (
        {it.family for it in one.items} == {"paraphrase"} and len(one.items) == 40 and one.families == ("paraphrase",)
    )
