"""`embedding_probe` (issue 42 §2, the cheap learned verifier): out of fold and grouped, deterministic, and evaluated
across subsets and by transfer with the same training rule."""
import zlib
import numpy as np
import pytest

from reasoning_integrity.signals.chains import Chain
from reasoning_integrity.signals.registry import SignalModels
from reasoning_integrity.signals.combined import combined_predictions, combined_models
from reasoning_integrity.signals.probe import probe_features, probe_evaluations
from reasoning_integrity.signals.validity import problem_of


class _Emb:
    "A deterministic stand-in embedder: a hashed bag of words (what the probe reads, without a model)."
    def __call__(self, texts):
        out = np.zeros((len(texts), 32))
        for i, t in enumerate(texts):
            for w in t.lower().split(): out[i, zlib.crc32(w.encode()) % 32] += 1.0
        return out + 1e-3


def _chains(n=60, seed=0, ds="processbench"):
    rng = np.random.default_rng(seed)
    out = []
    for p in range(n):
        k = int(rng.integers(3, 6)); fe = int(rng.integers(0, k)) if p % 2 else -1
        steps = [("this is wrong" if i == fe else "we add numbers") + " ok" * int(rng.integers(0, 4)) for i in range(k)]
        out.append(Chain(f"{ds}/{p}", steps, f"q {p // 2}", first_error=fe, dataset=ds, meta={"subset": "ab"[(p // 4) % 2]}))
    return out


def test_features_shape_and_first_step_has_no_previous():
    cs = _chains(4)
    F, cols = probe_features(cs, SignalModels(emb=_Emb()))
    assert cols[:2] == ["length", "position"] and "cos_previous" in cols and len(cols) == F[cs[0].id].shape[1]
    j = cols.index("cos_previous")
    assert all(np.isnan(F[c.id][0, j]) and np.isfinite(F[c.id][1:, j]).all() for c in cs)


def test_out_of_fold_grouped_and_deterministic():
    cs = _chains()
    a = combined_predictions(cs, SignalModels(emb=_Emb()), kind="embedding_probe")
    sc = SignalModels(emb=_Emb())
    b = combined_predictions(cs, sc, kind="embedding_probe")
    assert all(np.array_equal(x, y) for x, y in zip(a, b))                    # same data, same seed: same values
    m = combined_models(sc, "embedding_probe")["processbench"]
    folds = {}
    for c in cs: folds.setdefault(problem_of(c), set()).add(m.fold_of[problem_of(c)])
    assert all(len(f) == 1 for f in folds.values())                            # a problem never on both sides


def test_subset_rotation_never_tests_on_a_training_subset():
    lab = {"processbench": _chains(80)}
    E = probe_evaluations(lab, SignalModels(emb=_Emb()), n_boot=50)
    for r in E[E.evaluation.str.startswith("subset:") & (E.level == "step")].itertuples():
        held = r.evaluation.split(":", 1)[1]
        n_test = sum(c.meta["subset"] == held for c in lab["processbench"])
        assert r.tested_on == f"processbench ({n_test} chains)" and r.trained_on == f"processbench ({80 - n_test} chains)"
    pr = E[(E.model == "embedding_probe") & (E.level == "step")]
    assert (pr.auroc > 0.9).all(), pr                                         # the words carry the label
