"""The item explorer over the committed reports: every experiment writes per-item records, the JupyterLab explorer
(driven headlessly through its widget values) and the static page open every item, and what an item says agrees
with the report's own tables."""
import filecmp
import html
import json
from pathlib import Path

import pandas as pd
import pytest

from reasoning_integrity.explore import Explorer, available_reports, item_html, load_items, report_html
from reasoning_integrity.runner import experiment_paths, reproduce

ROOT = Path(__file__).resolve().parents[1]
NAMES = sorted(experiment_paths(ROOT))


def test_every_experiment_writes_records():
    assert len(NAMES) >= 10
    assert available_reports(ROOT / "reports") == [n for n in NAMES if n in available_reports(ROOT / "reports")]
    missing = [n for n in NAMES if n not in available_reports(ROOT / "reports")]
    assert not missing, f"experiments without per-item records: {missing}"


@pytest.mark.parametrize("name", NAMES)
def test_explorer_opens_every_item(name):
    items, problems = load_items(ROOT / "reports" / name)
    assert items and not problems, problems[:3]
    ex = Explorer(name, reports_dir=ROOT / "reports")
    assert [v for _, v in ex.items.options] == [it["id"] for it in items]
    for it in items:
        view = ex.show(it["id"])
        assert html.escape(it.get("title") or it["id"]) in view
        if it.get("steps"): assert html.escape(str(it["steps"][0])) in view      # its first step is on screen
        if it.get("matrices"): assert 'class="ri-matrix"' in view
        if it.get("parse_problems"): assert "parse problems" in view
    page = report_html(name, reports_dir=ROOT / "reports")
    assert page.count("<section id=") == len(items)


def test_scenario_items_agree_with_the_table():
    items = {it["id"]: it for it in load_items(ROOT / "reports/trajectory_scenarios")[0]}
    tab = pd.read_csv(ROOT / "reports/trajectory_scenarios/tables/scenarios.csv").set_index("scenario")
    assert set(items) == set(tab.index)
    for name, it in items.items():
        assert it["fields"]["D"] == pytest.approx(tab.D[name], rel=1e-9)
        m = next(iter(it["matrices"].values()))
        # D is the sum of δ along the path drawn on the matrix
        assert sum(m["values"][i][j] for i, j in m["path"]) == pytest.approx(tab.D[name], rel=1e-6)
        assert len(it["steps"]) == len(m["values"])


@pytest.mark.timeout(300)
def test_rerun_is_byte_identical(tmp_path):
    "`ri reproduce trajectory_scenarios` twice: every table and the records file byte-identical."
    outs = []
    for k in range(2):
        res = reproduce(["trajectory_scenarios"], reports_dir=tmp_path / f"r{k}", root=ROOT, progress=False)
        assert list(res.status) == ["ok"], res.error.tolist()
        outs.append(tmp_path / f"r{k}" / "trajectory_scenarios")
    files = sorted(p.relative_to(outs[0]) for p in outs[0].rglob("*") if p.suffix in (".csv", ".jsonl"))
    assert len(files) >= 5
    for f in files: assert filecmp.cmp(outs[0] / f, outs[1] / f, shallow=False), f
