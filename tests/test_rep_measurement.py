"""REP measurements that mean something: perturbations every δ can see above the noise floor, answers from the
model's own continuation, the paper's raw-D score, both alignments, one population, a noise-floor stage, the noisy
oracle's known behaviour recovered, the paired schema, repair budgets, and parameters checked before any call."""
import copy, json
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from reasoning_integrity.lines.trajectory.types import BeliefState, Trajectory, state_from_obj, PAIRED_STATE_SCHEMA, parse_trajectory
from reasoning_integrity.lines.trajectory.tasks import rep_problems
from reasoning_integrity.lines.trajectory.divergence import (structural_delta, probabilistic_delta, semantic_delta,
                                                    composite_delta)
from reasoning_integrity.core.stats import estimate_ci
from reasoning_integrity.models.llm import LLM, Request
from reasoning_integrity.lines.trajectory.protocol import run_rep, RepConfig, stage_request
from reasoning_integrity.lines.trajectory.perturb import perturb_task
from reasoning_integrity.lines.trajectory.oracle import NoisyOracle
from reasoning_integrity.lines.trajectory.measure import (measure_records, measure_trajectory, stage_table, population,
                                                       NOISE_FLOOR, TABLE1_COLUMNS)
from reasoning_integrity.run.report import resolve_params


@pytest.fixture(scope="module")
def deltas():
    from reasoning_integrity.models.embed import Embedder
    e = Embedder()
    sem = semantic_delta(e, parts=True)
    return {"semantic": sem, "structural": structural_delta, "probabilistic": probabilistic_delta,
            "composite": composite_delta([sem, structural_delta, probabilistic_delta]), "semantic_whole": semantic_delta(e)}


@pytest.fixture(scope="module")
def oracle_run():
    tasks = rep_problems(60, seed=11)
    orc = NoisyOracle(tasks, error=0.1, sample_error=0.2, repair=0.8, seed=0)
    return tasks, run_rep(LLM(orc, cache=None), tasks, RepConfig(n_samples=1), progress=False)


# The δs of the protocol (semantic with its two parts embedded separately, structural, probabilistic, composite) must
# all clear the floor's whole interval for every operator. `semantic_whole`, the whole rendered state in one
# embedding, is measured beside them to show why the semantic δ embeds the parts: it cannot tell "A is taller than B"
# from its converse (cosine ≈ 0.99 under all-MiniLM-L6-v2), so for a contradicted comparison it stays near the floor
# (mean 0.008 against 0.007); that one pair must only be above the floor's mean.
KNOWN_PARTIAL = {("semantic_whole", "task:flip_relation")}

@pytest.mark.slow   # 5 deltas x 200 perturbed problems, one pair at a time: minutes on 2 cores (make test-integration)
def test_every_operator_is_visible_above_the_noise_floor_under_every_delta(deltas, oracle_run):
    "δ(B_k, B~_k) of the data-recomputed perturbation is clearly above the greedy-vs-sampled floor, per operator and δ."
    tasks, recs = oracle_run
    for name, d in deltas.items():
        nf = measure_records(recs, d, alignment="dtw")
        floor = estimate_ci(nf[nf.stage == NOISE_FLOOR].D_normalized, n_boot=1000)
        by_op = {}
        for t in rep_problems(200, seed=5):
            k = (len(t.steps) - 1) // 2
            p, spec = perturb_task(t, k, seed=t.id)
            g = BeliefState.from_dict(t.steps[spec.args["step"]])
            by_op.setdefault(spec.name, []).append(float(d([g], [p])[0, 0]))
        assert {"task:change_result", "task:flip_relation", "task:negate_clue", "task:negate_fact"} <= set(by_op)
        for op, vals in by_op.items():
            m, lo, hi = estimate_ci(vals, n_boot=1000)
            if (name, op) in KNOWN_PARTIAL: assert m > floor[0], (name, op, m, floor); continue   # above, not clearly
            assert lo > floor[2], (name, op, (m, lo), floor)


def test_perturbation_changes_hypotheses_not_only_text():
    for t in rep_problems(80, seed=2):
        for k in range(len(t.steps)):
            p, spec = perturb_task(t, k, seed=k)
            g = BeliefState.from_dict(t.steps[spec.args["step"]])
            assert p.hypothesis_set != g.hypothesis_set and structural_delta([g], [p])[0, 0] > 0
            assert probabilistic_delta([g], [p])[0, 0] > 0


def test_oracle_table_separates_the_stages(deltas, oracle_run):
    "Known behaviour recovered: perturbed D above the noise floor (CIs apart), repaired D below perturbed D."
    tasks, recs = oracle_run
    t = stage_table(measure_records(recs, deltas["composite"], alignment=["dtw", "pad"]), n_boot=1000)
    for al, g in t.groupby("alignment"):
        g = g.set_index("stage")
        assert g.loc["perturbed", "ci_low_D"] > g.loc[NOISE_FLOOR, "ci_high_D"]
        assert g.loc["repaired", "D"] < g.loc["perturbed", "D"]
        assert g.loc["baseline", "D"] == 0 and g.loc["constrained", "D"] < g.loc["perturbed", "D"]   # an erring
        # baseline can differ from its constrained continuation after k, so the constrained D is small, not zero
        assert g.loc["baseline", "accuracy"] > g.loc["perturbed", "accuracy"]
    assert list(t.columns[:len(TABLE1_COLUMNS)]) == TABLE1_COLUMNS


def test_oracle_rates_are_what_was_set():
    tasks = rep_problems(300, seed=3)
    o = NoisyOracle(tasks, error=0.3, sample_error=0.0, repair=0.5, seed=1)
    wrong = [o.solve(Request(prompt=f"Problem: {t.question}\nReasoning:"))[0] != t.reference_trajectory().states
             for t in tasks]
    assert 0.22 < np.mean(wrong) < 0.38


def test_continuation_answer_comes_from_the_continuation(oracle_run):
    "A perturbed continuation that writes nothing has no answer, is not parsed, and leaves the population."
    tasks, recs = oracle_run
    recs2 = copy.deepcopy(recs[:6])
    c = recs2[0].calls["perturbed"]
    c.trajectory = {**c.trajectory, "states": c.trajectory["states"][:recs2[0].k + 1], "answer": None}
    df = measure_records(recs2)
    row = df[(df.id == recs2[0].id) & (df.stage == "perturbed")].iloc[0]
    assert row.answer is None or row.answer != row.answer   # None (NaN once in a frame)
    assert not row.parsed and not row.correct
    assert recs2[0].id not in population(df) and len(population(df)) == 5
    t = stage_table(df).set_index("stage")
    assert (t.n == 5).all() and t.loc["perturbed", "n_all"] == 6


def test_score_is_raw_d_with_normalized_beside():
    base = Trajectory([BeliefState([h], [1.0]) for h in "abcd"])
    pert = Trajectory([BeliefState([h], [1.0]) for h in "axcd"])
    m = measure_trajectory(pert, base, alignment="pad")
    assert m["D"] == 1.0 and m["D_normalized"] == 0.25 and m["C"] == 3.0
    assert m["score"] == pytest.approx(-1.0 - 0.3) and m["score_normalized"] == pytest.approx(-0.25 - 0.3)
    m2 = measure_trajectory(pert, base, alignment="pad", alpha=0, beta=0, gamma=0)
    assert m2["score"] == -1.0


def test_alpha_beta_gamma_and_alignments_reach_the_table(oracle_run):
    tasks, recs = oracle_run
    a = stage_table(measure_records(recs[:10], alignment=["dtw", "pad"], alpha=2.0, beta=0.0, gamma=0.0))
    b = stage_table(measure_records(recs[:10], alignment=["dtw", "pad"]))
    assert set(a.alignment) == {"dtw", "pad"} and len(a) == 10
    assert not np.allclose(a.C, b.C)


def test_paired_schema_cannot_mismatch():
    import jsonschema
    @given(st.lists(st.tuples(st.text(min_size=1, max_size=8), st.floats(0, 1)), min_size=1, max_size=6))
    @settings(max_examples=200, deadline=None)
    def inner(pairs):
        obj = {"hypotheses": [{"h": h, "p": p} for h, p in pairs], "constraints": []}
        jsonschema.validate(obj, PAIRED_STATE_SCHEMA)
        s, problems = state_from_obj(obj)
        assert "confidence_length_mismatch" not in s.flags
        assert len(s.confidence) == len(s.hypotheses)
    inner()
    bad = {"hypotheses": [{"h": "a"}, {"h": "b", "p": 0.5}], "constraints": []}
    with pytest.raises(jsonschema.ValidationError): jsonschema.validate(bad, PAIRED_STATE_SCHEMA)


def test_repair_budget_covers_the_attempt():
    t = rep_problems(1)[0]
    long = Trajectory([BeliefState([str(10 ** 12 + i)], [1.0], [f"step {i} " * 10]) for i in range(12)])
    r = stage_request("repaired", t, RepConfig(max_tokens=64), attempt=long)
    shown = r.prompt.rsplit("Attempt: ", 1)[1]
    assert r.max_tokens >= 2.0 * len(shown) / 2 > 64


def test_parameters_are_checked_before_any_call():
    P = {"quick": {"delta": "composite", "alignment": ["dtw", "pad"]}}
    C = {"delta": ("composite", "semantic", "structural", "probabilistic", "jensen_shannon"), "alignment": ("dtw", "pad")}
    with pytest.raises(ValueError, match="jensen_shanon.*not one of"):
        resolve_params("quick", P, {"delta": "jensen_shanon"}, C)
    with pytest.raises(ValueError, match="'padding' is not one of"):
        resolve_params("quick", P, {"alignment": ["dtw", "padding"]}, C)
    assert resolve_params("quick", P, {"delta": "jensen_shannon"}, C)["delta"] == "jensen_shannon"
