"""Malformed per-item records: `ri view` (and so the docs build, which renders the same page) skips and counts each
one instead of crashing; `check_item` refuses wrong types with a ValueError; `item_html` draws anything it accepts."""
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st, example

from reasoning_integrity.run import cli
from reasoning_integrity.run.explore import Explorer, item_html, load_items
from reasoning_integrity.run.report import _redact, check_item

ROOT = Path(__file__).resolve().parents[1]
GOOD = {"id": "ok", "title": "a good item", "steps": ["2+3=5"], "step_signals": {"s": [0.5]}}

# the records of issue 26 (point 6), and the other shapes that got past the old loader
BAD = {"title_int": b'{"id":"a","title":5}',
       "fields_list": b'{"id":"a","fields":[1,2]}',
       "step_signals_list": b'{"id":"a","step_signals":[1]}',
       "raw_900_deep": b'{"id":"a","raw":' + b"[" * 900 + b"]" * 900 + b"}",
       "raw_100k_deep": b'{"id":"a","raw":' + b"[" * 100_000 + b"]" * 100_000 + b"}",
       "line_5MB": b'{"id":"a","raw":"' + b"x" * 5_000_000 + b'"}',
       "correct_list": b'{"id":"a","correct":[1]}',
       "question_dict": b'{"id":"a","question":{"q":1}}',
       "matrix_rows_int": b'{"id":"a","matrices":{"m":{"values":[[1]],"rows":5}}}',
       "matrix_path_str": b'{"id":"a","matrices":{"m":{"values":[[1,2]],"path":["ab"]}}}',
       "not_utf8": b'{"id":"a","title":"\xff\xfe"}',
       "not_an_object": b'[1, 2, 3]'}


def _report(tmp_path, line:bytes)->Path:
    d = tmp_path / "toy"
    (d / "records").mkdir(parents=True)
    (d / "manifest.json").write_text("{}")
    (d / "records" / "items.jsonl").write_bytes(json.dumps(GOOD).encode() + b"\n" + line + b"\n")
    return d


@pytest.mark.parametrize("case", sorted(BAD))
def test_ri_view_skips_and_counts_a_malformed_record(tmp_path, case):
    d = _report(tmp_path, BAD[case])
    assert cli.main(["view", "toy", "--no-open", "--reports-dir", str(tmp_path)]) == 0
    page = (d / "explorer.html").read_text()
    assert "1 malformed record skipped: items.jsonl:2: " in page
    assert page.count('<section id="item-') == 1 and "a good item" in page
    items, problems = load_items(d)
    assert [it["id"] for it in items] == ["ok"] and len(problems) == 1
    assert "1 malformed record skipped" in Explorer("toy", reports_dir=tmp_path).status.value


def test_the_reason_is_named(tmp_path):
    reasons = {"title_int": "'title' must be a string, not int", "fields_list": "'fields' must be a dict, not list",
               "step_signals_list": "'step_signals' must be a dict, not list", "raw_900_deep": "nested deeper than 32 levels",
               "raw_100k_deep": "nested deeper than 32 levels", "line_5MB": "a line of more than 2097152 bytes",
               "matrix_rows_int": "has no list of rows labels", "not_utf8": "can't decode byte 0xff"}
    for case, why in reasons.items():
        (problem,) = load_items(_report(tmp_path / case, BAD[case]))[1]
        assert why in problem, (case, problem)


@pytest.mark.parametrize("bad", [dict(id="a", title=5), dict(id="a", fields=[1, 2]), dict(id="a", step_signals=[1]),
                                 dict(id="a", step_signals={"s": 1}), dict(id="a", correct="yes"), dict(id="a", steps="abc"),
                                 dict(id="a", raw=5), dict(id="a", raw={"r": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}),
                                 dict(id="a", matrices={"m": [[1]]}), dict(id="a", matrices={"m": dict(values=[[1]], path=[[True, 0]])}),
                                 dict(id="a", fields={"n": 2 ** 2000}), {"id": "a", 5: 1}, [1], "a"])
def test_check_item_refuses_wrong_types_with_a_value_error(bad):
    with pytest.raises(ValueError): check_item(bad)
    with pytest.raises(ValueError): item_html(bad if isinstance(bad, dict) else {"id": "a", "raw": bad, "title": 1})


def test_check_item_refuses_a_cycle_without_recursing():
    loop = []; loop.append(loop)
    with pytest.raises(ValueError, match="nested deeper than 32"): check_item(dict(id="a", fields={"l": loop}))


def test_good_records_are_unchanged():
    "Every committed record: check_item's copy, written as Report.items writes it, is the line it was read from."
    n = 0
    for f in sorted((ROOT / "reports").glob("*/records/*.jsonl")):
        for line in f.read_text(encoding="utf-8").split("\n"):
            if not line: continue
            assert _redact(json.dumps(check_item(json.loads(line)), sort_keys=True, ensure_ascii=False)) == line, f
            n += 1
    assert n > 100


_scalar = st.one_of(st.none(), st.booleans(), st.integers(-2 ** 1100, 2 ** 1100), st.floats(allow_nan=True),
                    st.text(max_size=8))
_json = st.recursive(_scalar, lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=4), c, max_size=4),
                     max_leaves=12)
_list = lambda el: st.lists(el, max_size=4)
_matrix = st.fixed_dictionaries({"values": st.one_of(_json, st.integers(0, 3).flatmap(lambda nc: _list(_list(_scalar).map(
    lambda r: (r + [None] * nc)[:nc]))))}, optional={"rows": st.one_of(_json, _list(_scalar)), "cols": st.one_of(_json, _list(_scalar)),
                                                     "path": st.one_of(_json, _list(_list(st.integers(-1, 3))))})
_item = st.fixed_dictionaries({"id": st.text(min_size=1, max_size=5)}, optional={
    "title": st.one_of(_scalar, _json), "question": _scalar, "reference": _scalar, "answer": _scalar, "prediction": _scalar,
    "correct": _scalar, "steps": st.one_of(_json, _list(_json)), "trace": _scalar, "parse_problems": st.one_of(_json, _list(_scalar)),
    "raw": st.one_of(_json, st.dictionaries(st.text(max_size=3), _json, max_size=3)),
    "fields": st.one_of(_json, st.dictionaries(st.text(max_size=3), _json, max_size=4)),
    "step_signals": st.one_of(_json, st.dictionaries(st.text(max_size=3), _list(_scalar), max_size=3)),
    "matrices": st.one_of(_json, st.dictionaries(st.text(max_size=3), _matrix, max_size=2))})


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(_item)
@example({"id": "0", "reference": 1.7976931345e+308})   # rounds to 10 digits past the largest float: must stay None both ways
def test_item_html_draws_whatever_check_item_accepts(item):
    try: ok = check_item(item)
    except ValueError: return
    assert isinstance(item_html(item), str)
    line = json.dumps(ok, sort_keys=True, ensure_ascii=False)         # and what it accepts reads back the same
    assert check_item(json.loads(line)) == ok
