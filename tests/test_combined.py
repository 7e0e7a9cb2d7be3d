"""The `combined` signal (signals.combined): grouped folds never share a problem, a step's value never depends on its
own problem's labels, the permuted-label control is at chance, and the model is registered, recorded and reused —
on constructed data with known answers and on a real ProcessBench sample with model-free features."""
import dataclasses, os

import numpy as np
import pytest

from reasoning_integrity.signals.chains import Chain
from reasoning_integrity.signals.metrics import _oof_logit, auroc, normal_scores
from reasoning_integrity.signals.registry import SIGNALS, SignalModels, compute_signals, signal
from reasoning_integrity.signals.validity import problem_of
import reasoning_integrity.signals.combined as cb

TASKS = {"toy": dict(step="first_error", chain="has_error")}


def _toy(n_problems=100, seed=0, signal_strength=0.8):
    rng = np.random.default_rng(seed)
    out = []
    for p in range(n_problems):
        for s in range(2):
            n = int(rng.integers(3, 9)); fe = int(rng.integers(0, n)) if rng.random() < 0.5 else -1
            steps = ["x" * int(rng.integers(20, 60) + (30 if i == fe else 0)) + f" {p}.{s}.{i}" for i in range(n)]
            out.append(Chain(f"toy/{p}-{s}", steps, f"problem {p}", first_error=fe, dataset="toy",
                             meta={"flag": [float(rng.random() < (signal_strength if i == fe else 0.2)) for i in range(n)]}))
    return out


@pytest.fixture(autouse=True)
def toy_flag():
    @signal("toy_flag", "step")
    def _flag(chains, sc): return [np.array(c.meta.get("flag", [np.nan] * c.n_steps), dtype=float) for c in chains]
    yield
    del SIGNALS["toy_flag"]


def _fit(chains, **kw):
    tr, L = cb._training(chains, TASKS["toy"])
    names = cb.combined_features(tr, SignalModels())
    F = cb.step_features(tr, SignalModels(), names)
    return tr, L, F, ["length", "position", *names], cb.fit_combined(tr, F, L, ["length", "position", *names], **kw)


def test_grouped_folds_never_share_a_problem():
    chains = _toy()
    tr, L, F, cols, m = _fit(chains)
    assert set(m.fold_of) == {problem_of(c) for c in tr} and m.k == 5
    # both solutions of every problem are in training and every labelled step of a problem has the problem's fold
    folds = {}
    for c in tr: folds.setdefault(problem_of(c), set()).add(m.fold_of[problem_of(c)])
    assert all(len(v) == 1 for v in folds.values())
    sizes = np.bincount(list(m.fold_of.values()))
    assert sizes.min() >= len(m.fold_of) // 5 - 3        # five folds of about 20 problems


def test_value_never_depends_on_own_problems_labels():
    "Flip every label of one problem: its values are bit-identical; with the folds fixed, only other problems move."
    chains = _toy()
    tr, L, F, cols, m = _fit(chains)
    for p in ("toy|problem 3", "toy|problem 42"):
        flip = {c.id: (1 - L[c.id] if problem_of(c) == p else L[c.id]) for c in tr}
        m2 = cb.fit_combined(tr, F, flip, cols, fold_of=m.fold_of)
        for c in tr:
            if problem_of(c) == p: assert np.array_equal(m2.oof[c.id], m.oof[c.id])
        assert max(np.abs(m2.oof[c.id] - m.oof[c.id]).max() for c in tr) > 1e-6


def test_oof_values_are_the_tables_estimator_and_beat_chance():
    chains = _toy()
    tr, L, F, cols, m = _fit(chains)
    used = [cols.index(n) for n in m.features[:len(m.ref)]]       # a feature undefined everywhere was dropped
    X = m.design(np.vstack([F[c.id] for c in tr])[:, used])
    y = np.concatenate([L[c.id] for c in tr]); lab = np.isfinite(y)
    folds = np.array([m.fold_of[problem_of(c)] for c in tr for _ in c.steps])[lab]
    p = np.concatenate([m.oof[c.id] for c in tr])[lab]
    assert np.allclose(np.log(p / (1 - p)), _oof_logit(X[lab], y[lab], folds, 1.0)[0], atol=1e-9)
    assert m.oof_auroc == pytest.approx(auroc(p, y[lab])) and m.oof_auroc > 0.75
    assert np.allclose(cb.rank_normal(F[tr[0].id][:, 0], F[tr[0].id][:, 0]), normal_scores(F[tr[0].id][:, 0]))


def test_permuted_label_control_is_at_chance():
    chains = _toy(n_problems=150, seed=3)
    ctl = cb.permuted_control(chains, SignalModels(), n_perm=30, tasks=TASKS)
    r = ctl.iloc[0]
    assert r.auroc > 0.75
    # chance, and far below the real labels. Pooled out-of-fold AUROC under the null sits a little *below* 0.5: a fold
    # whose held-out part has more positives was trained on fewer, so its intercept is lower (0.47 here, 30 permutations)
    assert abs(r.perm_mean - 0.5) < 0.05 and r.perm_high < r.auroc
    assert r.perm_sd < 0.05


def test_missing_values_imputed_with_indicator():
    chains = _toy(40)
    for c in chains[::3]: c.meta["flag"] = [np.nan] * c.n_steps           # a feature undefined for a third of the chains
    tr, L, F, cols, m = _fit(chains)
    assert "missing:toy_flag" in m.features                                   # missing where no structure explains it
    assert "first_step[missing:redundant_reasoning]" in m.features            # step 0 has no predecessor: the first-step flag
    assert all(np.isfinite(v).all() for v in m.oof.values())
    j, jF = m.features.index("toy_flag"), cols.index("toy_flag")   # model column, raw column (all-NaN ones dropped)
    x = np.concatenate([F[c.id][:, jF] for c in tr])
    assert np.isclose(m.median[j], np.median(cb.rank_normal(m.ref[j], x[np.isfinite(x)])))


def test_registered_signal_reuses_its_model_for_perturbed_and_new_chains(monkeypatch):
    from reasoning_integrity.signals import validity
    monkeypatch.setitem(validity.TASKS, "toy", TASKS["toy"])
    s = SIGNALS["combined"]
    assert (s.level, s.higher, s.family) == ("step", "wrong", "learned") and "learned" in s.description
    chains = _toy(60)
    sc = SignalModels()
    V, cov = compute_signals(chains, ["combined"], sc)
    m = cb.combined_models(sc)["toy"]
    T = cb.combined_model_table(sc)
    assert set(T.feature) >= {"length", "position", "toy_flag", "(intercept)"}
    assert T.training.iloc[0].startswith("learned: logistic regression trained on toy step labels (first_error;")
    assert "5-fold grouped by problem, out of fold" in T.training.iloc[0]
    # a later call: sound originals (one class) and perturbed copies; not refitted, perturbed copies never trained on
    sound = [c for c in chains if c.first_error == -1][:5]
    pert = [dataclasses.replace(c, id=c.id + "~p", steps=c.steps + ["x" * 200], first_error=c.n_steps,
                                meta={**c.meta, "flag": c.meta["flag"] + [1.0], "perturbation": {"op": "insert"}}) for c in sound]
    fp = m.fingerprint
    V2, _ = compute_signals(sound + pert, ["combined"], sc)
    assert cb.combined_models(sc)["toy"].fingerprint == fp
    v = V2[V2.level == "step"].groupby("chain_id").value.apply(list)
    for c, q in zip(sound, pert):
        assert v[c.id] == pytest.approx(list(m.oof[c.id]))
        assert v[q.id][-1] > max(v[q.id][:-1])           # the long, flagged inserted step stands out
    # without labels anywhere and no model: NaN, never an error
    V3, _ = compute_signals([dataclasses.replace(c, dataset="other") for c in chains[:4]], ["combined"], SignalModels())
    assert V3.value.isna().all()


@pytest.mark.timeout(600)
def test_processbench_sample_model_free_features():
    "A real ProcessBench sample (30 solutions per subset), model-free features: above chance, permuted at chance."
    if not os.environ.get("RI_DATA_DIR"): pytest.skip("RI_DATA_DIR not set")
    from reasoning_integrity.signals.labelled import processbench_chains
    pb, _ = processbench_chains(n_per_subset=30, seed=0)
    ctl = cb.permuted_control(pb, SignalModels(), n_perm=20)
    r = ctl.iloc[0]
    assert r.dataset == "processbench" and r.n_problems >= 100
    assert set(r.features.split(", ")) >= {"length", "position", "redundant_reasoning"}
    assert abs(r.perm_mean - 0.5) < 0.04, r
    assert r.auroc > r.perm_high, r
