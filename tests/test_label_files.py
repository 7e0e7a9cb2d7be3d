"""`logs.labels.read_labels` (nbs/84_label_files.ipynb): random label lists round-trip to `first_error` /
`error_steps` in every format that carries them, and hostile files (a 50 MB line, JSON nested 100,000 deep, a steps
list of 100,000 items) are bounded and reported as problems, never a crash."""
import json, resource, time
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings, HealthCheck, strategies as st

from reasoning_integrity.logs.labels import read_labels, step_errors
from reasoning_integrity.logs.readers import LogReadError

WRONG = {"correct": 0, "error": 1, "rating": -1}
VALUES = {"correct": [0, 1], "error": [0, 1], "rating": [-1, 0, 1]}

@st.composite
def labelled(draw):
    means = draw(st.sampled_from(sorted(WRONG)))
    rows = draw(st.lists(st.lists(st.sampled_from(VALUES[means]), min_size=1, max_size=12), min_size=1, max_size=6))
    return means, rows

def _expected(labels, means):
    errs = [k for k, v in enumerate(labels) if v == WRONG[means]]
    return (errs[0] if errs else -1), errs

@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(labelled(), st.sampled_from(["jsonl", "csv", "parquet"]))
def test_random_labels_round_trip(tmp_path, case, fmt):
    means, rows = case
    df = pd.DataFrame(dict(question=[f"q{i}" for i in range(len(rows))], steps=[[f"s{k}" for k in range(len(r))] for r in rows],
                           labels=rows, fe=[_expected(r, means)[0] for r in rows]))
    p = tmp_path / f"f.{fmt}"
    if fmt == "jsonl": p.write_text("".join(json.dumps(r) + "\n" for r in df.to_dict("records")))
    elif fmt == "csv": df.assign(steps=df.steps.map(json.dumps), labels=df.labels.map(json.dumps)).to_csv(p, index=False)
    else: df.to_parquet(p)
    lf = read_labels(p, step_labels="labels", first_error="fe", label_means=means)
    assert lf.problems.empty and lf.source["n_rows"] == len(rows) and lf.source["format"] == fmt
    assert [(c.first_error, c.error_steps) for c in lf.chains] == [_expected(r, means) for r in rows]
    assert [step_errors(r, means) for r in rows] == [c.error_steps for c in lf.chains]

@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=1, max_size=10), st.sampled_from(sorted(WRONG)))
def test_labels_outside_the_values_are_refused(labels, means):
    if all(v in VALUES[means] for v in labels): assert step_errors(labels, means) == _expected(labels, means)[1]
    else:
        with pytest.raises(ValueError, match="is not in"): step_errors(labels, means)

def _good(i): return json.dumps(dict(question=f"q{i}", steps=["a", "b"], fe=1)) + "\n"

def _bounded(fn, seconds=20, mib=600):
    "Run fn; its time and the growth of this process's peak memory stay under the bounds."
    before, t = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, time.time()
    out = fn()
    grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert time.time() - t < seconds and grown < mib, (time.time() - t, grown)
    return out

def test_a_50mb_line_is_skipped_unread(tmp_path):
    p = tmp_path / "big.jsonl"
    with open(p, "w") as f:
        f.write(_good(0)); f.write('{"question": "q", "steps": ["' + "x" * 50_000_000 + '"], "fe": 0}\n'); f.write(_good(2))
    lf = _bounded(lambda: read_labels(p, first_error="fe"))
    assert [c.meta["row"] for c in lf.chains] == [1, 3]
    assert lf.problems[["row", "kind"]].values.tolist() == [[2, "row_too_large"]]

def test_a_50mb_csv_field_stops_the_file_with_a_reason(tmp_path):
    p = tmp_path / "big.csv"
    p.write_text("question,steps\nq,a\nq," + "x" * 50_000_000 + "\nq,b\n")
    lf = _bounded(lambda: read_labels(p))
    assert len(lf.chains) == 1 and lf.problems.kind.tolist() == ["unreadable_csv"]
    assert "rest of the file not read" in lf.problems.reason[0]

def test_deep_json_is_refused_before_parsing(tmp_path):
    p = tmp_path / "deep.jsonl"
    p.write_text(_good(0) + '{"question": "q", "steps": ' + "[" * 100_000 + "]" * 100_000 + "}\n" + "[" * 100_000 + "\n" + _good(3))
    lf = _bounded(lambda: read_labels(p, first_error="fe"))
    assert len(lf.chains) == 2 and lf.problems.kind.tolist() == ["too_deep", "too_deep"]
    q = tmp_path / "deep.json"   # a whole ProcessBench document: one clear error
    q.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(LogReadError, match="nested"): read_labels(q)

def test_a_steps_list_of_100k_items_is_capped(tmp_path):
    p = tmp_path / "many.jsonl"
    n = 100_000
    p.write_text(json.dumps(dict(question="q", steps=[f"s{i}" for i in range(n)], labels=[1] * (n - 1) + [0])) + "\n"
                 + json.dumps(dict(question="q", steps=[f"s{i}" for i in range(n)], labels=[0] + [1] * (n - 1))) + "\n")
    lf = _bounded(lambda: read_labels(p, step_labels="labels"))
    assert [(c.n_steps, c.first_error, c.error_steps) for c in lf.chains] == [(2000, 0, [0])]
    assert lf.problems.kind.tolist() == ["first_error_cut", "steps_truncated"]
    assert lf.problems.row.tolist() == [1, 2]

def test_non_utf8_and_garbage_rows_are_counted(tmp_path):
    p = tmp_path / "junk.jsonl"
    p.write_bytes(_good(0).encode() + b"\xff\xfe\x00junk\n" + b"[1, 2]\n" + b"null\n" + _good(4).encode())
    lf = read_labels(p, first_error="fe", format="jsonl")
    assert len(lf.chains) == 2 and lf.source["n_rows"] == 5
    assert lf.problems.kind.tolist() == ["not_utf8", "not_an_object", "not_an_object"]
