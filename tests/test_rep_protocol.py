"""REP stage logic end to end on a scripted backend whose every response is written here by hand, including malformed
and failing ones (counted in the records, never fatal)."""
import json
import warnings
import pytest
from reasoning_integrity.lines.trajectory.types import BeliefState
from reasoning_integrity.lines.trajectory.tasks import rep_problems
from reasoning_integrity.models.llm import LLM
from reasoning_integrity.lines.trajectory.protocol import run_rep, RepConfig, RepRecord, final_answer, side_by_side, STAGES
from reasoning_integrity.models.doubles import ScriptedBackend
from reasoning_integrity.lines.trajectory.perturb import apply_task_perturbation

TASKS = rep_problems(4, seed=0)  # arithmetic, ordering, syllogism, location


def stage_of(req):
    tail = req.prompt.rsplit("Problem: ", 1)[1]
    if "Attempt:" in tail: return "repaired"
    if "Fixed steps:" in tail: return "continuation"
    return "sample" if req.temperature > 0 else "baseline"


def which(req):
    q = req.prompt.rsplit("Problem: ", 1)[1].split("\n")[0]
    return next(i for i, t in enumerate(TASKS) if t.question == q)


# Hand-written responses: (task index, stage) -> text. Task 0 is answered well; task 1's baseline is truncated JSON
# (so its continuation stages fall back to the reference prefix) and its repair is prose with an answer line; task 2's
# continuation stages answer with garbage and its sample is cut off mid-JSON (complete steps salvaged); task 3's calls
# raise (backend failure) except the empty sample and the baseline, which has only one state (too short for k) and
# a confidence that does not sum to 1.
ARITH = TASKS[0]
RESP = {
    (0, "baseline"): json.dumps({"steps": ARITH.steps, "answer": ARITH.answer}),
    (0, "sample"): json.dumps({"steps": ARITH.steps[:-1], "answer": ARITH.steps[-2]["hypotheses"][0]}),
    (0, "continuation"): json.dumps({"steps": ARITH.steps[len(ARITH.steps) // 2 + 1:], "answer": "999"}),
    (0, "repaired"): json.dumps({"steps": ARITH.steps, "answer": ARITH.answer}),
    (1, "baseline"): '{"steps": [{"hypotheses": ["Ana", "Ben"], "confidence": [0.5, 0.5], "constraints": ["Eli is ta',
    (1, "sample"): "I think it is Gus.",
    (1, "continuation"): json.dumps({"steps": [{"hypotheses": [TASKS[1].answer], "confidence": [1.0],
                                                "constraints": ["done"]}], "answer": TASKS[1].answer}),
    (1, "repaired"): f"After review the final answer is {TASKS[1].answer}",
    (2, "baseline"): json.dumps({"steps": TASKS[2].steps, "answer": TASKS[2].answer}),
    (2, "sample"): json.dumps({"steps": TASKS[2].steps, "answer": TASKS[2].answer})[:-60],  # cut by max_tokens
    (3, "sample"): "",
    (2, "continuation"): "<<<not json at all>>>",
    (2, "repaired"): json.dumps({"steps": TASKS[2].steps, "answer": TASKS[2].answer}),
    (3, "baseline"): json.dumps({"steps": [{"hypotheses": ["attic", "hall"], "confidence": [3, 1],
                                            "constraints": []}], "answer": "attic"}),
}


def script(req):
    i, st = which(req), stage_of(req)
    if (i, st) not in RESP: raise RuntimeError(f"backend down for task {i} {st}")
    return RESP[(i, st)]


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    out = tmp_path_factory.mktemp("rep")
    llm = LLM(ScriptedBackend(script, "hand-written"), cache=None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the LLM warns about the failed calls, as it should
        recs = run_rep(llm, TASKS, RepConfig(n_samples=1), out_dir=out, progress=False)
    return recs, out


def kinds(call): return [p["kind"] for p in call.problems]


def test_every_problem_has_all_stages_and_a_record_file(records):
    recs, out = records
    assert len(recs) == 4
    for r in recs:
        assert set(r.calls) == set(STAGES) and len(r.samples) == 1
        back = RepRecord.load(out / f"{r.id}.json")
        assert back.to_dict() == r.to_dict()
        for st in STAGES: assert r.calls[st].request["prompt"].startswith("Solve the problem")


def test_good_task(records):
    r = records[0][0]
    assert r.prefix_source == "baseline" and r.k == (len(ARITH.steps) - 1) // 2
    assert final_answer(r.trajectory("baseline"))[0] == ARITH.answer
    assert final_answer(r.trajectory("constrained"))[0] == "999"  # the continuation's own answer is used
    assert len(r.trajectory("constrained")) == len(ARITH.steps)
    pert = r.trajectory("perturbed").states[r.k]
    orig = BeliefState.from_dict(r.original_state)
    # B~_k is recomputed from the task's data: a false equation whose result is the new hypothesis
    assert {**pert.to_dict(), "step": None} == {**apply_task_perturbation(ARITH, r.perturbation).to_dict(), "step": None}
    assert pert.hypothesis_set != orig.hypothesis_set
    assert r.perturbation["name"] == "task:change_result"
    assert all(not c.problems for c in r.calls.values()) and all(c.parsed for c in r.calls.values())
    # the repair prompt shows the perturbed trajectory to the model, in the paired schema form
    assert json.dumps({"h": pert.hypotheses[0], "p": 1.0}) in r.calls["repaired"].request["prompt"].rsplit("Attempt:", 1)[1]


def test_truncated_baseline_falls_back_to_reference(records):
    r = records[0][1]
    assert "truncated_json" in kinds(r.calls["baseline"]) and len(r.trajectory("baseline")) == 0
    assert r.prefix_source == "reference" and r.perturbation["args"]["requested_step"] == (len(TASKS[1].steps) - 1) // 2
    assert r.k == r.perturbation["args"]["step"]   # moved: no contradiction of the first comparison changes the candidates
    assert final_answer(r.trajectory("repaired")) == (TASKS[1].answer, "answer_field")  # answer line in prose
    assert "no_states" in kinds(r.calls["repaired"])
    assert "no_states" in kinds(r.samples[0])


def test_garbage_continuations_are_counted(records):
    r = records[0][2]
    for st in ("constrained", "perturbed"):
        assert "no_states" in kinds(r.calls[st]) and "continuation_empty" in kinds(r.calls[st])
        assert len(r.trajectory(st)) == r.k + 1  # only the fixed prefix
        assert r.trajectory(st).meta["prefix_len"] == r.k + 1
        assert not r.calls[st].parsed and final_answer(r.trajectory(st)) == (None, "none")   # not the prefix's answer
    # the truncated sample keeps its complete steps, and says so
    s = r.samples[0]
    assert "truncated_json" in kinds(s) and "salvaged_states" in kinds(s) and "no_states" not in kinds(s)
    cut = json.dumps({"steps": TASKS[2].steps, "answer": TASKS[2].answer})[:-60]
    n_complete = sum(cut.find(json.dumps(st)) >= 0 for st in TASKS[2].steps)
    assert 0 < len(s.traj()) == n_complete < len(TASKS[2].steps)
    assert final_answer(s.traj())[1] == "last_state"


def test_backend_failures_are_recorded(records):
    r = records[0][3]
    assert "confidence_normalised" in kinds(r.calls["baseline"])
    assert r.prefix_source == "reference"  # one state is too short for k in {1..N-1}
    for st in ("constrained", "perturbed", "repaired"):
        c = r.calls[st]
        assert c.error and "backend down" in c.error and kinds(c)[0] == "llm_error"
    assert final_answer(r.trajectory("repaired")) == (None, "none")
    assert "empty_output" in kinds(r.samples[0])


def test_side_by_side(records):
    df = side_by_side(records[0][0])
    assert list(df.columns) == ["step", "reference", "baseline", "constrained", "perturbed", "repaired"]
    assert df.iloc[-1]["baseline"] == ARITH.answer
    df3 = side_by_side(records[0][3])  # a failed problem still renders
    assert df3.iloc[-1]["repaired"] == ""


def replay_lines(recs):
    "One replay line per successful call of a run (the format of `models.llm.record_replay`)."
    out = []
    for r in recs:
        for c in list(r.calls.values()) + r.samples:
            if c.error is None: out.append(json.dumps({"request": c.request, "text": c.text}))
    return out


def test_replay_backend_reproduces_the_run(records, tmp_path):
    "The same run through the real `replay:` backend gives the same records; unrecorded calls fail, counted."
    from reasoning_integrity.models.llm import get_llm
    recs, _ = records
    f = tmp_path / "rep.jsonl"
    f.write_text("\n".join(replay_lines(recs)) + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        again = run_rep(get_llm(f"replay:{f}", cache=False), TASKS, RepConfig(n_samples=1), progress=False)
    for a, b in zip(recs, again):
        for st in STAGES:
            assert a.trajectory(st).to_dict()["states"] == b.trajectory(st).to_dict()["states"]
            assert (a.calls[st].error is None) == (b.calls[st].error is None)
        assert a.perturbation == b.perturbation and a.k == b.k
    assert "no recorded output" in again[3].calls["repaired"].error


def test_stage_figure_is_the_same_on_every_run():
    "plot_stages' strip jitter is seeded: two draws give the same PNG bytes, and numpy's global generator is left as it was (issue 41)."
    import io
    import matplotlib; matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np, pandas as pd
    from reasoning_integrity.lines.trajectory.measure import STAGES
    from reasoning_integrity.lines.trajectory.report import plot_stages
    rows = [dict(id=i, stage=s, alignment="dtw", parsed=True, D=0.1 * i + j, C=1.0 + i * j)
            for i in range(6) for j, s in enumerate(STAGES)]
    df = pd.DataFrame(rows)
    def png():
        fig = plot_stages({"run": df}, "dtw", "semantic"); buf = io.BytesIO()
        fig.savefig(buf, format="png", metadata={"Software": None}); plt.close(fig)
        return buf.getvalue()
    np.random.seed(123); before = np.random.get_state()[1].copy()
    a = png(); np.random.rand(); b = png()
    assert a == b
    np.random.seed(123); png()
    assert (np.random.get_state()[1] == before).all()
