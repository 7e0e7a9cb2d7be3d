"""The rep_protocol experiment notebook end to end on a `replay:` recording of a hand-scripted solver: every table and
figure the issue names is written, and the numbers follow from what the solver did."""
import json, os, subprocess, sys
from pathlib import Path
import pandas as pd
import pytest
from reasoning_integrity.lines.trajectory.tasks import rep_problems
from reasoning_integrity.models.llm import LLM
from reasoning_integrity.lines.trajectory.protocol import run_rep, RepConfig
from reasoning_integrity.models.doubles import ScriptedBackend
from reasoning_integrity.lines.trajectory.measure import TABLE1_COLUMNS

ROOT = Path(__file__).resolve().parents[1]
N = 4


def oracle_for(tasks):
    "Baseline and repair: the reference path; continuations: the reference's remaining steps (perturbation ignored)."
    by_q = {t.question: t for t in tasks}
    def script(req):
        tail = req.prompt.rsplit("Problem: ", 1)[1]
        t = by_q[tail.split("\n")[0]]
        steps = t.steps
        if "Fixed steps:" in tail:
            steps = steps[len(json.loads(tail.split("Fixed steps: ")[1].split("\n")[0])["steps"]):]
        return json.dumps({"steps": steps, "answer": t.answer})
    return script


@pytest.mark.timeout(600)
def test_rep_protocol_notebook_on_a_replay(tmp_path):
    pytest.importorskip("papermill")
    tasks = rep_problems(N, seed=0)
    cfg = RepConfig(style="completion", json_schema=True, n_samples=1, seed=0)  # what the notebook will ask
    recs = run_rep(LLM(ScriptedBackend(oracle_for(tasks)), cache=None), tasks, cfg, progress=False)
    rec_file = tmp_path / "oracle.jsonl"
    rec_file.write_text("".join(json.dumps({"request": c.request, "text": c.text}) + "\n"
                                for r in recs for c in list(r.calls.values()) + r.samples))
    out = tmp_path / "report"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    cmd = [sys.executable, "-m", "papermill", str(ROOT / "nbs/experiments/rep_protocol.ipynb"), str(tmp_path / "o.ipynb"),
           "-p", "report_dir", str(out), "-p", "llm", f"replay:{rec_file}", "-p", "n_problems", str(N),
           "-p", "n_samples", "1", "-p", "n_boot", "200", "-p", "oracle_n", "8", "--cwd", str(ROOT)]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=580)
    assert r.returncode == 0, r.stderr[-3000:]
    t1 = pd.read_csv(out / "tables/table1.csv")
    assert list(t1.columns[:len(TABLE1_COLUMNS)]) == TABLE1_COLUMNS
    stages = ["baseline", "constrained", "perturbed", "repaired", "noise_floor"]
    assert list(t1.stage) == stages * 2 and list(t1.alignment) == ["dtw"] * 5 + ["pad"] * 5   # both alignments
    t = t1[t1.alignment == "dtw"].set_index("stage")
    assert (t.n == N).all() and (t.accuracy == 1.0).all()  # the scripted solver is always right
    assert (t.loc[["baseline", "constrained", "repaired", "noise_floor"], "D"] == 0).all()
    assert t.loc["perturbed", "D"] > 0  # B~_k differs from B_k under the composite δ
    assert (t.score <= -0.1 * t.C + 1e-12).all()  # score = -D - λC with the raw D
    pp = pd.read_csv(out / "tables/per_problem.csv")
    assert len(pp) == 5 * N * 2 and set(pp.stage) == set(t1.stage)
    o = pd.read_csv(out / "tables/oracle_table1.csv")
    assert list(o.columns[:len(TABLE1_COLUMNS)]) == TABLE1_COLUMNS and set(o.stage) == set(stages)
    paired = pd.read_csv(out / "tables/paired.csv")
    assert (paired.repair_reduced == 1.0).all()  # perfect repair: Remark 1 holds on every problem
    pbd, ps = pd.read_csv(out / "tables/paired_by_delta.csv"), pd.read_csv(out / "tables/paired_summary.csv")
    assert set(pbd.delta) == {"semantic", "structural", "probabilistic", "composite", "semantic_whole"}
    pd.testing.assert_frame_equal(pbd[pbd.delta == "composite"].drop(columns="delta").reset_index(drop=True), ps)
    for f in ["paper_comparison", "by_delta", "parse_problems", "fallbacks", "example_trajectories", "stage_counts",
              "perturbation_visibility", "oracle_perturbation_visibility", "answer_verdicts"]:
        assert (out / f"tables/{f}.csv").exists(), f
    for f in ["d_and_c_by_stage", "example_trajectories"]:
        assert (out / f"figures/{f}.png").stat().st_size > 1000
    assert len(list((out / "records").glob("*.json"))) == N
    man = json.loads((out / "manifest.json").read_text())
    assert man["models"]["llm"]["spec"] == f"replay:{rec_file}"
