"""Scenario schema and loader: strict on the contract, tolerant of extensions, errors that
name the file and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.benchkit import scenario_dict, write_scenario
from dctx.bench.loader import bundled_root, load_file, load_scenarios, parse_scenario
from dctx.bench.schema import BeforeCall, Scenario
from dctx.errors import ScenarioFormatError, UserError


def test_contract_example_loads(tmp_path: Path) -> None:
    path = write_scenario(tmp_path, scenario_dict())
    sc = load_file(path)
    assert sc.id == "fin.conditional_activation.tiny_growth"
    assert sc.name == "tiny_growth"
    assert sc.tool_names() == ["get_financials"]
    assert sc.test.steps[0].call.arguments == {"company": "Beta"}
    assert sc.expect[1].by == "start"
    assert sc.expect[2].by == "final"  # the default
    assert sc.expect[0].examples is not None
    assert sc.checks[0].type == "output_contains"


def test_unknown_keys_and_extensions_are_accepted(tmp_path: Path) -> None:
    data = scenario_dict(author="someone", tags=["x"])
    data["expect"][0]["notes"] = "free text"
    data["seed"][0]["messages"][0]["name"] = "alice"
    data["tools"][0] = {"type": "function", "function": data["tools"][0]}  # OpenAI wrapper
    data["expect"][0]["by"] = {"before_call": 2}
    sc = load_file(write_scenario(tmp_path, data))
    assert sc.tools[0].name == "get_financials"
    assert isinstance(sc.expect[0].by, BeforeCall) and sc.expect[0].by.before_call == 2


def test_unquoted_yaml_timestamp_is_kept_as_text(tmp_path: Path) -> None:
    text = write_scenario(tmp_path, scenario_dict()).read_text()
    text = text.replace("'2026-03-02T09:00:00Z'", "2026-03-02T09:00:00Z")
    sc = parse_scenario(text, "x.yaml")
    assert sc.seed[0].timestamp == "2026-03-02T09:00:00Z"


def _mutate(field: str, value: object) -> dict[str, object]:
    data = scenario_dict()
    target: object = data
    parts = field.split(".")
    for part in parts[:-1]:
        target = target[int(part)] if isinstance(target, list) else target[part]  # type: ignore[index]
    last = parts[-1]
    if value is ...:
        del target[last]  # type: ignore[union-attr]
    elif isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value  # type: ignore[index]
    return data


@pytest.mark.parametrize(
    ("field", "value", "named"),
    [
        ("dimension", "vibes", "dimension"),
        ("expect.0.weight", 4, "expect[0].weight"),
        ("expect.0.weight", "2", "expect[0].weight"),
        ("expect.0.mode", "maybe", "expect[0].mode"),
        ("expect.0.match", ..., "expect[0]"),
        ("expect.1.forbid", {"all": ["(unclosed"]}, "expect[1].forbid.all"),
        ("expect.0.by", {"before_call": 0}, "expect[0].by"),
        ("expect", [], "expect"),
        ("test.steps.0.result", {"not": "a string"}, "test.steps[0].result"),
        ("test.query", ..., "test.query"),
        ("seed.0.messages.0.role", "robot", "seed[0].messages"),
        ("checks.0", {"type": "telepathy"}, "checks[0]"),
        ("id", ..., "id"),
    ],
)
def test_contract_errors_name_file_and_field(
    tmp_path: Path, field: str, value: object, named: str
) -> None:
    path = write_scenario(tmp_path, _mutate(field, value), name="broken.yaml")
    with pytest.raises(ScenarioFormatError) as err:
        load_file(path)
    msg = str(err.value)
    assert str(path) in msg
    assert named in msg
    assert isinstance(err.value, UserError)


def test_too_many_items_and_duplicate_item_ids(tmp_path: Path) -> None:
    data = scenario_dict()
    data["expect"] = data["expect"] * 3  # 9 items, duplicate ids
    with pytest.raises(ScenarioFormatError, match="expect"):
        load_file(write_scenario(tmp_path, data))
    data = scenario_dict()
    data["expect"][2]["id"] = data["expect"][0]["id"]
    with pytest.raises(ScenarioFormatError, match="duplicate rubric item id"):
        load_file(write_scenario(tmp_path, data))


def test_not_yaml_and_not_a_mapping(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: [unclosed\n")
    with pytest.raises(ScenarioFormatError, match="not valid YAML"):
        load_file(bad)
    bad.write_text("- a\n- b\n")
    with pytest.raises(ScenarioFormatError, match="one mapping"):
        load_file(bad)


def test_folder_loading_filters_and_duplicates(tmp_path: Path) -> None:
    a = scenario_dict()
    b = scenario_dict(id="cs.recall.tiny", dimension="recall", domain="customer_support")
    write_scenario(tmp_path / "fin", a)
    write_scenario(tmp_path / "cs" / "deeper", b)
    write_scenario(tmp_path / "_drafts", scenario_dict(id="x.recall.draft"))  # skipped
    assert [ls.scenario.id for ls in load_scenarios(tmp_path)] == [b["id"], a["id"]]
    assert [ls.scenario.id for ls in load_scenarios(tmp_path, dimensions=["recall"])] == [b["id"]]
    assert [ls.scenario.id for ls in load_scenarios(tmp_path, ids=["fin.*"])] == [a["id"]]
    with pytest.raises(ScenarioFormatError, match="unknown dimension"):
        load_scenarios(tmp_path, dimensions=["nope"])
    write_scenario(tmp_path / "again", a, name="copy.yaml")
    with pytest.raises(ScenarioFormatError, match="duplicate id"):
        load_scenarios(tmp_path)
    with pytest.raises(ScenarioFormatError, match="no such"):
        load_scenarios(tmp_path / "missing")


def test_bundled_scenarios_come_from_package_resources() -> None:
    root = bundled_root()
    assert root.is_dir()
    loaded = load_scenarios()
    assert loaded, "the bundled benchmark is empty"
    assert all(ls.source.startswith("dctx/bench/scenarios/") for ls in loaded)
    assert all(isinstance(ls.scenario, Scenario) for ls in loaded)
