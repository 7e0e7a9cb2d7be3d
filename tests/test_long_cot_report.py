"""The `deltabench` and `processbench` tables and records built by `lines.long_cot.report` (issue 30: the experiments
only call the library), checked against the raw data files read here another way (`json`, no loader), against the
ProcessBench paper's subset sizes, and as properties of the solution-selection rule."""
import json, math
import pandas as pd, pytest
from hypothesis import given, settings, strategies as st
from reasoning_integrity.core.data import data_path
from reasoning_integrity.core.text import cut
from reasoning_integrity.lines.long_cot import report as R
from reasoning_integrity.lines.long_cot.deltabench import load_deltabench, resolve_deltabench
from reasoning_integrity.lines.long_cot.processbench import PBSample, load_processbench, PROCESSBENCH_SUBSETS
from reasoning_integrity.lines.long_cot.critic import run_delta_critic
from reasoning_integrity.lines.long_cot.section_scorers import PositionScorer, LengthScorer, items_of, delta_prm_rows
from reasoning_integrity.models.doubles import FakeLLM
from reasoning_integrity.run.report import check_item


@st.composite
def solutions(draw):
    labels = draw(st.lists(st.tuples(st.sampled_from(PROCESSBENCH_SUBSETS), st.integers(-1, 3)), max_size=30))
    return [PBSample(f"{s}-{i}", s, "gen", "p", ["a"] * 4, lab) for i, (s, lab) in enumerate(labels)]

@given(solutions(), st.integers(0, 12))
@settings(max_examples=200, deadline=None)
def test_pb_first_takes_half_erroneous_half_correct_in_file_order(xs, k):
    for sub in PROCESSBENCH_SUBSETS:
        mine = [x for x in xs if x.subset == sub]
        got = R.pb_first(xs, sub, k)
        if k == 0: assert got == mine; continue
        err, ok = [x for x in got if x.label != -1], [x for x in got if x.label == -1]
        assert err == [x for x in mine if x.label != -1][:math.ceil(k / 2)]
        assert ok == [x for x in mine if x.label == -1][:k // 2]
        assert got == err + ok and len(got) <= k
    assert R.pb_take(xs, k) == [x for sub in PROCESSBENCH_SUBSETS for x in R.pb_first(xs, sub, k)]

@given(st.text(max_size=60), st.integers(0, 70))
def test_cut_keeps_a_prefix_and_says_how_much_was_cut(s, n):
    c = cut(s, n)
    if len(s) <= n: assert c == s
    else: assert c == s[:n] + f"… [{len(s) - n} more characters]"


@pytest.fixture(scope="module")
def pb(): return load_processbench()[0]

def test_pb_counts_match_the_paper_and_the_files(pb):
    c = R.pb_counts(pb).set_index("subset")
    # per subset: solutions, and those with an error (ProcessBench; the counts data/processbench/SOURCE.md states)
    assert c.n.to_dict() == {"gsm8k": 400, "math": 1000, "olympiadbench": 1000, "omnimath": 1000}
    assert c.erroneous.to_dict() == {"gsm8k": 207, "math": 594, "olympiadbench": 661, "omnimath": 759}
    for sub in PROCESSBENCH_SUBSETS:   # mean steps, from the raw files
        raw = json.loads(data_path(f"processbench/dataset/{sub}.json").read_text())
        assert c.mean_steps[sub] == pytest.approx(sum(len(r["steps"]) for r in raw) / len(raw))
    take = R.pb_take(pb, 40)
    assert len(take) == 160 and sum(x.label != -1 for x in take) == 80


@pytest.fixture(scope="module")
def delta():
    samples, _ = load_deltabench("sample")
    raw = json.loads(resolve_deltabench("sample").read_text())
    return samples, {r["id"]: r for r in raw}

def test_delta_items_show_the_raw_labels(delta):
    samples, raw = delta
    scored = {sc.name: (sc.score_many(items_of(samples)), samples, sc) for sc in (PositionScorer(), LengthScorer())}
    rows = pd.concat([delta_prm_rows(n, s, smp, True) for n, (s, smp, _) in scored.items()], ignore_index=True)
    crit = samples[:4]   # an official-format critic that always names section 7
    runs = run_delta_critic(FakeLLM(lambda r: "Conclusion: yes\nError Section Number: 7\nExplanation: x"), crit).assign(model="m")
    recs = R.delta_items(samples, runs, rows, scored, "official")
    assert [r["id"] for r in recs] == [s.id for s in samples]
    for rec, s in zip(recs, samples):
        check_item(rec)
        r = raw[s.id]
        err = {i for i in r["reason_error_section_numbers"] if 1 <= i <= s.n_sections}
        unu = {i for i in r["reason_unuseful_section_numbers"] if 1 <= i <= s.n_sections}
        labels = rec["step_signals"]["human: label"]
        assert len(rec["steps"]) == len(labels) == s.n_sections
        assert {i for i, l in enumerate(labels, 1) if "error" in l} == err
        assert {i for i, l in enumerate(labels, 1) if "not useful" in l} == unu
        assert rec["reference"] == "gold sections: " + (", ".join(map(str, sorted(err | unu))) or "none")
        if s in crit:
            assert rec["prediction"] == "sections 7" and rec["fields"]["critic_parser"] == "official"
            # officially, predictions after the last gold section are dropped: 7 is a hit exactly when it is gold
            assert rec.get("correct") == (7 in err | unu if err | unu else None)
        else: assert "prediction" not in rec
    assert len(R.delta_items(samples, runs, rows, scored, "official", per_domain=3)) == 3   # all ten are math
