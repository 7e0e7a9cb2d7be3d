"""The DeltaBench and ProcessBench experiments end to end with a tiny local PRM checkpoint (`-p hf_prm <folder>`)
and an LLM whose every call fails (an empty `replay:` recording): the official rule is the default, the PRM rows
recompute from `prm_samples.csv` (ProcessBench: with `prm_thresholds.csv`), failed critic calls are counted, ProcessBench tables carry an `average` row."""
import os, subprocess, sys
from pathlib import Path
import numpy as np
import pandas as pd
import pytest

pytest.importorskip("papermill"); pytest.importorskip("torch")
from reasoning_integrity.core.data import data_path
from reasoning_integrity.models.prm import tiny_prm
from reasoning_integrity.lines.long_cot.metrics import detection_scores, processbench_scores, hit_rate_at_k
from reasoning_integrity.lines.long_cot.section_scorers import pb_long_samples

ROOT = Path(__file__).resolve().parents[1]


def _run(nb, tmp_path, *params):
    empty = tmp_path / "empty.jsonl"; empty.write_text("")
    out = tmp_path / "report"
    cmd = [sys.executable, "-m", "papermill", str(ROOT / f"nbs/experiments/{nb}.ipynb"), str(tmp_path / "o.ipynb"),
           "-p", "report_dir", str(out), "-p", "llm", f"replay:{empty}", "-p", "use_nli", "False", *params,
           "--cwd", str(ROOT)]
    r = subprocess.run(cmd, env={**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "RI_FAIL_FAST": "0"},
                       capture_output=True, text=True, timeout=580)
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]
    return out / "tables"


def _deltabench_available():
    try: data_path("deltabench", download=False); return True
    except FileNotFoundError: return False


@pytest.mark.timeout(600)
@pytest.mark.parametrize("kind", ["lm_head", "token_classification"])
def test_deltabench_with_a_local_prm(tmp_path, kind):
    if not _deltabench_available(): pytest.skip("no DeltaBench data")
    prm = tiny_prm(kind, tmp_path / "prm", n_positions=2048)
    t = _run("deltabench", tmp_path, "-p", "hf_prm", str(prm), "-p", "n_eval", "4", "-p", "n_critic", "3",
             "-p", "n_judge", "1")
    critic = pd.read_csv(t / "critic.csv")
    assert (critic.rule == "official").all()
    allrow = critic.set_index("domain").loc["all"]
    assert allrow.no_answer == 3 and allrow.n == 0          # every call failed: counted, no metric from nothing
    prm_tab = pd.read_csv(t / "prm.csv")
    assert (prm_tab.rule == "official").all() and "prm" in set(prm_tab.scorer)
    long = pd.read_csv(t / "prm_samples.csv")
    assert {"random", "position", "length", "prm"} <= set(long.scorer)
    for scorer, g in long.groupby("scorer"):
        chains = [c for _, c in g.groupby("id", sort=False)]
        preds = [list(c.section[c.flagged]) for c in chains]
        golds = [set(c.section[c.gold]) for c in chains]
        d = detection_scores(preds, golds, "official")
        row = prm_tab[(prm_tab.scorer == scorer) & (prm_tab.domain == "all")].iloc[0]
        assert row.n == d["n"]
        for k in ("precision", "recall", "macro_f1"):
            assert np.isclose(row[k], d[k], equal_nan=True), (scorer, k)
        hr = hit_rate_at_k([np.where(c.score.isna(), np.inf, c.score) for c in chains], golds, 1)
        assert np.isclose(row.hitrate_1, hr, equal_nan=True)
        assert row.unscored == int(g.score.isna().sum())
    rules = pd.read_csv(t / "prm_rules.csv")
    assert set(rules.rule) == {"official", "all_sections"}


@pytest.mark.timeout(600)
@pytest.mark.parametrize("kind", ["rlhflow", "sequence_classification"])
def test_processbench_with_a_local_prm(tmp_path, kind):
    prm = tiny_prm(kind, tmp_path / "prm", n_positions=1024)
    t = _run("processbench", tmp_path, "-p", "hf_prm", str(prm), "-p", "n_per_subset", "4", "-p", "n_judge", "2")
    critic = pd.read_csv(t / "critic.csv")
    assert (critic.rule == "official").all()
    for model, g in critic.groupby("model"):
        subs = g.set_index("subset")
        assert set(subs.index) == {"gsm8k", "math", "olympiadbench", "omnimath", "average"}, model
        four = subs.drop("average").f1
        assert np.isclose(subs.loc["average", "f1"], np.mean(four.to_numpy()), equal_nan=True)   # nan in, nan out
    const = critic.set_index(["model", "subset"])
    assert const.loc[("always_no_error", "gsm8k"), "acc_correct"] == 1.0
    assert const.loc[("always_no_error", "gsm8k"), "acc_error"] == 0.0
    llm_rows = critic[~critic.model.isin(["always_no_error", "always_step_0", "label_prior"])]
    assert (llm_rows[llm_rows.subset != "average"].parse_failures == llm_rows[llm_rows.subset != "average"].n).all()
    prm_tab = pd.read_csv(t / "prm.csv")
    assert (prm_tab.rule == "official").all() and "average" in set(prm_tab[prm_tab.scorer == "prm"].subset)
    steps = pd.read_csv(t / "prm_samples.csv")
    assert {"random", "position", "length", "prm", "llm_judge"} <= set(steps.columns)   # one column per scorer
    thr = pd.read_csv(t / "prm_thresholds.csv")
    long = pb_long_samples(steps, thr)
    z = prm_tab[prm_tab.threshold_rule == "zscore"].set_index(["scorer", "subset"])
    for (scorer, sub), g in long.groupby(["scorer", "subset"]):
        sols = [s for _, s in g.groupby("id", sort=False)]
        pred = [int(s.step[s.score < s.zscore_threshold].min()) if (s.score < s.zscore_threshold).any() else -1
                for s in sols]
        d = processbench_scores(pred, [int(s.label.iloc[0]) for s in sols], "official")
        assert np.isclose(z.loc[(scorer, sub), "f1"], d["f1"], equal_nan=True), (scorer, sub)
        assert np.isclose(z.loc[(scorer, sub), "acc_error"], d["acc_error"], equal_nan=True)
