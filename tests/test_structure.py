"""The structural baseline (issue 42 §1): `structure_design`, `gain_over_structure` / `beats_structure`, the `structure`
signal and `combined_ablation`, on constructed chains whose answers are known."""
import numpy as np
import pytest

from reasoning_integrity.signals.chains import Chain
from reasoning_integrity.signals.registry import SIGNALS, SignalModels, signal, compute_signals
from reasoning_integrity.signals.validity import structure_design, baseline_comparison, problem_of
from reasoning_integrity.signals.combined import combined_predictions, combined_models, missing_name


def _chains(seed, n=400, p_first=0.45):
    "Chains whose steps go wrong with probability p_first at step 0 and 0.05 + 0.3 i/(n-1) after it, plus an independent cause z."
    rng = np.random.default_rng(seed)
    out, z = [], {}
    for i in range(n):
        k = int(rng.integers(4, 9)); cid = f"S{seed}/{i}"
        z[cid] = rng.normal(size=k)
        pw = np.r_[p_first, 0.05 + 0.3 * np.arange(1, k) / (k - 1)]
        logit = np.log(pw / (1 - pw)) + 1.5 * z[cid]
        wrong = np.flatnonzero(rng.random(k) < 1 / (1 + np.exp(-logit))).tolist()
        out.append(Chain(cid, [f"Step {j}: " + "w" * int(rng.integers(20, 200)) for j in range(k)], f"problem {cid}",
                         error_steps=wrong, dataset="toy_structure", meta={"subset": "ab"[i % 2]}))
    return out, z


@pytest.fixture
def toy_signals():
    tasks = {"toy_structure": dict(step="error_steps", chain="has_error")}
    from reasoning_integrity.signals.validity import TASKS
    TASKS.update(tasks)
    yield tasks
    for n in ("t_first_flag", "t_z"):
        SIGNALS.pop(n, None)
    TASKS.pop("toy_structure", None)


def test_structure_design_by_hand():
    cs = [Chain("a", ["x", "y", "z"], meta={"subset": "gsm8k"}), Chain("b", ["x", "y"], meta={"subset": "math"})]
    X, names = structure_design(cs, ["a", "a", "a", "b", "b"], [0, 1, 2, 0, 1])
    assert names == ["first_step", "step_index", "n_steps", "subset=math"]
    assert X.tolist() == [[1, 0, 3, 0], [0, 1, 3, 0], [0, 2, 3, 0], [1, 0, 2, 1], [0, 1, 2, 1]]
    Xc, nc = structure_design(cs, ["a", "b"])                       # chain level: no step features
    assert nc == ["n_steps", "subset=math"] and Xc.tolist() == [[3, 0], [2, 1]]
    assert structure_design(cs[:1], ["a"])[1] == ["n_steps"]         # one subset: no indicator


@pytest.mark.parametrize("seed", [1, 2])
def test_a_first_step_flag_beats_length_but_not_structure(toy_signals, seed):
    chains, z = _chains(seed)

    @signal("t_first_flag", "step")
    def _f(cs, sc): return [np.r_[1.0, np.zeros(c.n_steps - 1)] for c in cs]

    @signal("t_z", "step")
    def _z(cs, sc): return [z[c.id] for c in cs]

    V, _ = compute_signals(chains, ["t_first_flag", "t_z", "length", "position"])
    C = baseline_comparison(V, chains, toy_signals, n_boot=300).set_index(["signal", "level"])
    f, zz = C.loc[("t_first_flag", "step")], C.loc[("t_z", "step")]
    assert f.beats_length and not f.beats_structure                      # the first step in disguise
    assert abs(f.gain_over_structure) < 0.01 < f.incremental_gain
    assert zz.beats_length and zz.beats_structure and zz.gain_over_structure > 0.05
    assert f.structure_auroc > f.baseline_auroc                           # a higher bar than the best single baseline


def test_structure_signal_is_out_of_fold_and_knows_only_structure(toy_signals):
    chains, _ = _chains(3, n=200)
    sc = SignalModels()
    vals = combined_predictions(chains, sc, kind="structure", tasks=toy_signals)
    m = combined_models(sc, "structure")["toy_structure"]
    assert m.features == ["length", "position", "first_step", "step_index", "n_steps", "subset=b"]
    assert [len(v) for v in vals] == [c.n_steps for c in chains]
    # out of fold: a step's value is what the fold model that never saw its problem predicts
    for c, v in list(zip(chains, vals))[:20]:
        f = m.fold_of[problem_of(c)]
        assert f in m.fold_models
    # the first step's value is above the second's on average: the model learned the jump at step 0
    assert np.mean([v[0] for v in vals]) > np.mean([v[1] for v in vals])
    assert "structure" in SIGNALS and SIGNALS["structure"].family == "learned"


def test_missing_indicators_are_named_for_what_they_encode():
    step = np.array([0, 1, 2, 0, 1]); last = np.array([False, False, True, False, True])
    assert missing_name("thematic_shift", step == 0, step, last) == "first_step[missing:thematic_shift]"
    assert missing_name("x", last, step, last) == "last_step[missing:x]"
    assert missing_name("x", step < 2, step, last) == "first_two_steps[missing:x]"
    assert missing_name("x", np.array([1, 0, 0, 0, 0], bool), step, last) == "missing:x"
