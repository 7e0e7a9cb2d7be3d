"""`ri validate` end to end, in fresh processes as a new user runs it: a labelled file the test writes, a detector the
user defines with `@signal`, the CLI on built-in signals and on ProcessBench's own JSON, and the refusals."""
import json, os, subprocess, sys, random
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def toy_file(path, n_problems=60, seed=0):
    "Sums and products, a quarter of the chains sound, the others with one false statement (its index: first_error); one bad row."
    rng, rows = random.Random(seed), []
    for p in range(n_problems):
        for k in range(2):
            n = rng.randint(3, 6); bad = rng.randrange(n) if rng.random() < 0.75 else -1
            steps = []
            for i in range(n):
                a, b, op = rng.randint(10, 99), rng.randint(10, 99), rng.choice("+*")
                v = a + b if op == "+" else a * b
                steps.append(f"We compute {a} {op} {b} = {v + (rng.choice([-10, 10]) if i == bad else 0)}.")
            rows.append(dict(id=f"{p}-{k}", question=f"Problem {p}: add and multiply.", steps=steps, first_error=bad))
    rows.append(dict(id="bad", question="Q", steps=["1 + 1 = 2."], first_error=7))   # past its one step
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


USER = """
import json, re, sys, numpy as np
import reasoning_integrity as ri
from reasoning_integrity.signals.registry import signal

@signal("arith_check", "step")
def arith_check(chains, sc):
    pat = re.compile(r"(\\d+) ([+*]) (\\d+) = (-?\\d+)")
    def bad(s):
        m = pat.search(s)
        return np.nan if not m else float((int(m[1]) + int(m[3]) if m[2] == "+" else int(m[1]) * int(m[3])) != int(m[4]))
    return [np.array([bad(s) for s in c.steps]) for c in chains]

@signal("length_copy", "step")
def length_copy(chains, sc): return [np.array([len(s) for s in c.steps], float) for c in chains]

r = ri.validate("arith_check,length_copy", labels=sys.argv[1], reports_dir=sys.argv[2], first_error="first_error", id="id",
                n_boot=300, progress=False)
print(r)
"""


@pytest.fixture(scope="module")
def user_run(tmp_path_factory):
    d = tmp_path_factory.mktemp("validate")
    f = toy_file(d / "my_labels.jsonl")
    p = subprocess.run([sys.executable, "-c", USER, str(f), str(d / "reports")], capture_output=True, text=True, env=ENV,
                       cwd=d, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    return f, d / "reports" / "validated" / "my_labels", p.stdout


def test_a_detector_that_encodes_the_label_gets_auroc_1(user_run):
    _, rep, out = user_run
    v = pd.read_csv(rep / "tables" / "signal_validity.csv").set_index(["signal", "dataset", "level", "metric"])
    assert v.loc[("arith_check", "my_labels", "step", "auroc"), "value"] == 1.0
    assert v.loc[("arith_check", "my_labels", "step", "auroc"), "gain_over_structure"] > 0.3
    c = pd.read_csv(rep / "tables" / "baseline_comparison.csv").set_index(["signal", "level"])
    assert bool(c.loc[("arith_check", "step"), "beats_length"]) and bool(c.loc[("arith_check", "step"), "beats_structure"])
    f1 = v.xs("first_error_f1", level="metric").loc[("arith_check", "my_labels", "step")]
    assert f1["value"] > 0.9   # the ProcessBench rule on a perfect detector, threshold from the other half


def test_a_copy_of_length_gains_nothing_over_length(user_run):
    _, rep, _ = user_run
    v = pd.read_csv(rep / "tables" / "signal_validity.csv").set_index(["signal", "dataset", "level", "metric"])
    row = v.loc[("length_copy", "my_labels", "step", "auroc")]
    assert abs(row["incremental_gain"]) < 0.02 and row["gain_ci_low"] <= 0 <= row["gain_ci_high"]
    c = pd.read_csv(rep / "tables" / "baseline_comparison.csv").set_index(["signal", "level"])
    assert not bool(c.loc[("length_copy", "step"), "beats_length"])


def test_the_bad_row_is_reported_and_the_report_has_the_contract(user_run):
    f, rep, out = user_run
    probs = pd.read_csv(rep / "tables" / "problems.csv")
    assert probs[["id", "kind"]].values.tolist() == [["my_labels/bad", "first_error_out_of_range"]]
    run = json.loads((rep / "run.json").read_text())
    import hashlib
    assert (run["kind"], run["status"], run["n_chains"], run["n_problems"]) == ("validated", "ok", 120, 1)
    assert run["input_sha256"] == hashlib.sha256(f.read_bytes()).hexdigest()
    assert run["task"] == {"step": "first_error", "chain": "has_error", "first_error_f1": True}
    for p in ("manifest.json", "figures/auroc.png", "figures/distributions_step.png", "records/chains.jsonl"):
        assert (rep / p).is_file(), p
    assert len((rep / "records" / "chains.jsonl").read_text().splitlines()) == 120
    assert "120 chains of my_labels (1 problems)" in out


def _ri(*args, cwd):
    return subprocess.run([sys.executable, "-m", "reasoning_integrity.run.cli", *args], capture_output=True, text=True,
                          env=ENV, cwd=cwd, timeout=600)


def test_cli_on_built_in_signals_and_view(tmp_path):
    f = toy_file(tmp_path / "toy.jsonl")
    rd = tmp_path / "reports"
    p = _ri("validate", "--labels", str(f), "--signals", "verified_computation", "--first-error", "first_error", "--id", "id",
            "--reports-dir", str(rd), "--root", str(ROOT), "--n-boot", "200", "--no-progress", cwd=tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "browse: ri view toy" in p.stdout and "1 problems" in p.stdout
    v = pd.read_csv(rd / "validated" / "toy" / "tables" / "signal_validity.csv")
    a = v[(v.signal == "verified_computation") & (v.level == "step") & (v.metric == "auroc")].value.item()
    assert a == 1.0   # the project's verifier reads these statements: it flags exactly the false ones
    w = _ri("view", "toy", "--reports-dir", str(rd), "--root", str(ROOT), "--no-open", cwd=tmp_path)
    assert w.returncode == 0, w.stderr[-2000:]
    assert (rd / "validated" / "toy" / "explorer.html").is_file()


def test_cli_refusals_write_nothing(tmp_path):
    f = toy_file(tmp_path / "toy.jsonl")
    rd = tmp_path / "reports"
    p = _ri("validate", "--labels", str(f), "--name", "processbench", "--first-error", "first_error",
            "--reports-dir", str(rd), "--root", str(ROOT), cwd=tmp_path)
    assert p.returncode == 2 and "registered labelled set" in p.stderr and "nothing was written" in p.stderr
    (rd / "validated" / "mine").mkdir(parents=True); (rd / "validated" / "mine" / "notes.txt").write_text("keep me")
    p = _ri("validate", "--labels", str(f), "--name", "mine", "--first-error", "first_error", "--reports-dir", str(rd),
            "--root", str(ROOT), "--no-progress", "--n-boot", "50", cwd=tmp_path)
    assert p.returncode == 2 and "not a validated report" in p.stderr
    assert (rd / "validated" / "mine" / "notes.txt").read_text() == "keep me"
    p = _ri("validate", "--labels", str(tmp_path / "none.jsonl"), "--reports-dir", str(rd), "--root", str(ROOT), cwd=tmp_path)
    assert p.returncode == 2 and "nothing was written" in p.stderr


def test_processbench_json_through_the_cli(tmp_path):
    src = Path(os.environ.get("RI_DATA_DIR", ROOT / "data")) / "processbench" / "dataset" / "gsm8k.json"
    if not src.is_file(): pytest.skip("ProcessBench data not found (RI_DATA_DIR)")
    rd = tmp_path / "reports"
    p = _ri("validate", "--labels", str(src), "--signals", "length", "--name", "pb", "--reports-dir", str(rd),
            "--root", str(ROOT), "--n-boot", "100", "--no-progress", cwd=tmp_path)
    assert p.returncode == 0, p.stderr[-2000:]
    run = json.loads((rd / "validated" / "pb" / "run.json").read_text())
    assert run["n_chains"] == 400 and run["task"]["chain"] == "wrong_answer" and run["input"]["format"] == "processbench"
    v = pd.read_csv(rd / "validated" / "pb" / "tables" / "signal_validity.csv")
    assert {"auroc", "first_error_f1"} <= set(v.metric)


def test_metric_validity_profiles_are_the_registered_sizes():
    "The experiment's profile sizes are the labelled sets' own: one number, in one place checked against the other."
    from reasoning_integrity.run.params import notebook_profiles
    from reasoning_integrity.signals.labelled import LABELLED_SETS
    P = notebook_profiles(ROOT / "nbs" / "experiments" / "metric_validity.ipynb")
    knob = {"processbench": "pb_per_subset", "scienceqa": "sq_n", "ptp": "ptp_unannotated", "rep_gold": "rep_n"}
    for prof in ("quick", "full"):
        for s, k in knob.items():
            assert (P[prof][k] or None) == LABELLED_SETS[s].sizes[prof], (prof, s)


def test_a_prm_and_a_critic_by_name(tmp_path, monkeypatch):
    "`prm:<folder>` and `critic:` (here with the run's LLM, a scripted double) are judged like every signal."
    monkeypatch.setenv("RI_CACHE_DIR", str(tmp_path / "cache"))
    import reasoning_integrity as ri
    from reasoning_integrity.models.prm import tiny_prm
    from reasoning_integrity.models.doubles import FakeLLM
    prm = f"prm:{tiny_prm('lm_head', tmp_path / 'prm')}#kind=lm_head"
    f = toy_file(tmp_path / "toy.jsonl", n_problems=15)
    r = ri.validate(f"{prm},critic:", labels=f, llm=FakeLLM(lambda req: "\\boxed{0}"), first_error="first_error", id="id",
                    reports_dir=tmp_path / "reports", n_boot=50, progress=False)
    v = r.validity[(r.validity.metric == "auroc") & (r.validity.level == "step")].set_index("signal")
    assert {prm, "critic:"} <= set(v.index) and v.loc[[prm, "critic:"], "value"].between(0, 1).all()
    assert np.isfinite(v.loc[prm, "gain_over_structure"])
    # the critic names step 0 in every chain: its first-error guess is right only for chains wrong at step 0
    assert r.run["signals"] == [prm, "critic:"] and (r.report / "tables" / "coverage.csv").is_file()
