"""The committed full-profile metric-validity report, recomputed independently from the data (issue 27).

The length and position baselines need no model, so their rows can be recomputed from ProcessBench itself with another
implementation (scikit-learn's `roc_auc_score`, ProcessBench's own step lists): the report's rows must equal them to
1e-6, cover all 3,400 solutions, and carry the incremental-validity and power columns; `baseline_comparison.csv` must
say `beats_length` for every signal row.
"""
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

ROOT = Path(__file__).resolve().parents[1]
FULL = ROOT / "reports" / "full" / "metric_validity"
pytestmark = pytest.mark.skipif(not (FULL / "run.json").is_file(), reason="no full-profile report committed yet")


def _processbench():
    "Every ProcessBench solution from the data files, as (subset, steps, label) with label -1 for a correct one."
    from reasoning_integrity.core.data import data_path
    rows = []
    for sub in ("gsm8k", "math", "olympiadbench", "omnimath"):
        for d in json.loads(data_path(f"processbench/dataset/{sub}.json").read_text()):
            rows.append((sub, d["steps"], int(d["label"])))
    return rows


def _step_frame(rows):
    "Per labelled step (first-error rule): length (characters), position i/n, label, subset, solution index."
    out = []
    for k, (sub, steps, lab) in enumerate(rows):
        n = len(steps)
        for i, s in enumerate(steps):
            if lab != -1 and i > lab: break          # steps after the first error are left out
            out.append((k, sub, len(s), i / n, int(i == lab)))
    return pd.DataFrame(out, columns=["solution", "subset", "length", "position", "y"])


def test_full_report_covers_all_processbench_and_its_baselines_recompute():
    run = json.loads((FULL / "run.json").read_text())
    assert run["status"] == "ok" and run["parameters"]["profile"] == "full"
    rows = _processbench()
    assert len(rows) == 3400
    S = _step_frame(rows)
    val = pd.read_csv(FULL / "tables" / "signal_validity.csv")
    pb = val[(val.dataset == "processbench") & (val.metric == "auroc")].set_index(["signal", "level"])
    # step level: oriented values (longer = more suspicious, later = more suspicious)
    for sig, x in (("length", S.length), ("position", S.position)):
        r = pb.loc[(sig, "step")]
        assert r.n == len(S) == 16550 and r.n_pos == S.y.sum()
        assert abs(r.value - roc_auc_score(S.y, x)) < 1e-6, (sig, r.value)
    # chain level: the chain value is the max over all of a solution's steps; label: has an error
    lab = np.array([lab != -1 for _, _, lab in rows])
    L = np.array([max(len(s) for s in steps) for _, steps, _ in rows])
    Q = np.array([(len(steps) - 1) / len(steps) for _, steps, _ in rows])
    for sig, x in (("length", L), ("position", Q)):
        r = pb.loc[(sig, "chain")]
        assert r.n == 3400
        assert abs(r.value - roc_auc_score(lab, x)) < 1e-6, (sig, r.value)
    for col in ("power_mdd", "base_auroc", "incremental_gain", "gain_ci_low", "gain_ci_high", "within_length_auroc"):
        assert col in val.columns and pb[col].notna().any(), col


def test_baseline_comparison_says_beats_length():
    cmp_ = pd.read_csv(FULL / "tables" / "baseline_comparison.csv")
    assert "beats_length" in cmp_.columns and cmp_.beats_length.notna().all()
    assert set(cmp_.beats_length.unique()) <= {True, False}


def test_verifier_table_counts_and_wilson_intervals():
    "verifier_precision_recall: counts add up over subsets, the steps are the first-error rule's, intervals are Wilson's."
    from scipy.stats import norm
    from statsmodels.stats.proportion import proportion_confint
    ALPHA = 2 * norm.sf(1.96)                    # `signals.verify.wilson` uses z = 1.96 (not 1.95996...)
    T = pd.read_csv(FULL / "tables" / "verifier_precision_recall.csv").set_index("subset")
    subs = ["gsm8k", "math", "olympiadbench", "omnimath"]
    assert set(subs) | {"all"} == set(T.index)
    for col in ("solutions", "steps", "positives", "flagged", "tp", "checkable"):
        assert T.loc[subs, col].sum() == T.loc["all", col], col
    assert T.loc["all", "solutions"] == 3400 and T.loc["all", "steps"] == 16550
    rows = _processbench()
    assert T.loc["all", "positives"] == sum(lab != -1 for _, _, lab in rows)
    for k, r in T.iterrows():
        if r.flagged:
            lo, hi = proportion_confint(r.tp, r.flagged, alpha=ALPHA, method="wilson")
            assert abs(r.precision - r.tp / r.flagged) < 1e-9 and abs(r.precision_lo - lo) < 1e-6 and abs(r.precision_hi - hi) < 1e-6, k
        lo, hi = proportion_confint(r.tp, r.positives, alpha=ALPHA, method="wilson")
        assert abs(r.recall - r.tp / r.positives) < 1e-9 and abs(r.recall_lo - lo) < 1e-6 and abs(r.recall_hi - hi) < 1e-6, k


def test_combined_is_out_of_fold_and_its_control_is_at_chance():
    "The combined signal's ProcessBench step AUROC is its control's real-label AUROC; permuted labels sit near 0.5."
    ctl = pd.read_csv(FULL / "tables" / "combined_permuted_control.csv").set_index("dataset")
    val = pd.read_csv(FULL / "tables" / "signal_validity.csv")
    r = val[(val.signal == "combined") & (val.dataset == "processbench") & (val.level == "step") & (val.metric == "auroc")].iloc[0]
    c = ctl.loc["processbench"]
    assert c.n_steps == r.n == 16550
    assert abs(c.auroc - r.value) < 1e-6
    assert abs(c.perm_mean - 0.5) < 0.03 and c.perm_high < c.auroc
    coef = pd.read_csv(FULL / "tables" / "combined_model.csv")
    pb = coef[coef.dataset == "processbench"]
    assert {"length", "position", "(intercept)"} <= set(pb.feature) and pb.training.str.startswith("learned:").all()


def test_learned_evaluations_rotate_every_subset_and_length_rows_recompute():
    "Each learned model is tested on every ProcessBench subset after training on the other three (a subset's chains never on both sides); length's held-out step AUROC equals scikit-learn's on the data."
    ev = pd.read_csv(FULL / "tables" / "learned_verifier_evaluations.csv")
    rows = _processbench()
    sizes = pd.Series([s for s, _, _ in rows]).value_counts()
    for model in ("length", "structure", "embedding_probe", "learned_verifier"):
        m = ev[(ev.model == model) & ev.evaluation.str.startswith("subset:") & (ev.level == "step")].set_index("evaluation")
        assert sorted(m.index) == [f"subset:{s}" for s in sorted(sizes.index)], model
        for sub, r in m.iterrows():
            s = sub.split(":", 1)[1]
            assert r.tested_on == f"processbench ({sizes[s]} chains)" and r.trained_on == f"processbench ({len(rows) - sizes[s]} chains)"
            assert 0 <= r.first_error_f1 <= 100 and np.isfinite([r.incremental_gain, r.gain_over_structure, r.within_length_auroc]).all(), (model, sub)
    from reasoning_integrity.core.data import data_path
    problems = {sub: {d["problem"] for d in json.loads(data_path(f"processbench/dataset/{sub}.json").read_text())} for sub in sizes.index}
    for sub in problems:                                                        # no problem on both sides of a rotation
        assert not problems[sub] & set().union(*(problems[o] for o in problems if o != sub)), sub
    st = _step_frame(rows)
    for sub, g in st.groupby("subset"):
        r = ev[(ev.model == "length") & (ev.evaluation == f"subset:{sub}") & (ev.level == "step")].iloc[0]
        assert r.n == len(g) and abs(r.auroc - roc_auc_score(g.y, g.length)) < 1e-6, sub
