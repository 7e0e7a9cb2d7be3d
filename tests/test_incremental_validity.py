"""Incremental validity over length and position, power, multiplicity, split-half first-error F1 and the length-adjusted
perturbation effect (signals.metrics, signals.validity), on constructed data with known answers."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.stats import norm

from reasoning_integrity.signals.metrics import (auroc, fold_auroc, grouped_folds, incremental_auroc, oof_logistic,
                                                  min_detectable_auroc_diff, hanley_mcneil_var, holm_sidak,
                                                  holm_sidak_levels, bootstrap_p, bootstrap_lower_bound, split_half_f1,
                                                  split_halves, tune_threshold, length_adjusted_change)
from reasoning_integrity.lines.long_cot.metrics import best_f1_threshold, processbench_scores
from reasoning_integrity.signals.chains import Chain
from reasoning_integrity.signals.registry import SIGNALS, signal, compute_signals
from reasoning_integrity.signals.validity import (signal_validity, baseline_comparison, perturbation_sensitivity,
                                                    incremental_validity, published_processbench_f1, VALIDITY_COLUMNS,
                                                    PERTURBATION_COLUMNS)


def _logistic_data(n=3000, groups=600, seed=0):
    rng = np.random.default_rng(seed)
    g = np.repeat(np.arange(groups), n // groups)
    length, z, pos = rng.normal(size=n), rng.normal(size=n), rng.random(n)
    y_len = (rng.random(n) < 1 / (1 + np.exp(-(length - 1)))).astype(int)
    y_both = (rng.random(n) < 1 / (1 + np.exp(-(length + z - 1)))).astype(int)
    return rng, g, length, z, pos, y_len, y_both


# --- (1) the estimator on constructed data ---------------------------------------------------------------------------
def test_noisy_copy_of_length_gains_nothing_and_independent_signal_gains():
    rng, g, length, z, pos, y_len, y_both = _logistic_data()
    copy = incremental_auroc(length + rng.normal(0, .05, len(g)), length, pos, y_len, g, n_boot=600, return_boot=True)
    indep = incremental_auroc(z, length, pos, y_both, g, n_boot=600, return_boot=True)
    assert auroc(length + 0.0, y_len) > 0.7                                          # length itself is informative
    assert copy["gain_ci_low"] <= 0 <= copy["gain_ci_high"] and abs(copy["gain"]) < 0.01
    assert indep["gain"] > 0.05 and indep["gain_ci_low"] > 0 and indep["signal_coef"] > 0
    # the verdict of baseline_comparison, computed from these two: Holm–Šidák over the family, one-sided 2.5 %
    p = np.array([copy["p"], indep["p"]])
    lv = holm_sidak_levels(p, 0.025)
    beats = [bootstrap_lower_bound(r["boot"], a) > 0 and r["signal_coef"] > 0 for r, a in zip((copy, indep), lv)]
    assert beats == [False, True]
    assert list(holm_sidak(p, 0.025) <= 0.025) == beats


def test_hand_checkable_tiny_case():
    # two folds of lengths (1, 2, 3, 4), wrong at 2 and 4; the base model ranks by length within a fold: 3 of 4 pairs;
    # the signal equals the label: the full model ranks all wrong above all right
    L, y = np.tile([1., 2, 3, 4], 2), np.tile([0, 1, 0, 1], 2)
    r = incremental_auroc(y, L, np.zeros(8), y, np.arange(8), n_boot=100, folds=[0] * 4 + [1] * 4)
    assert (r["base_auroc"], r["full_auroc"], r["gain"]) == pytest.approx((0.75, 1.0, 0.25))
    # constant length and position: the base model predicts a constant within each fold, exactly chance
    r = incremental_auroc(y, np.ones(8), np.zeros(8), y, np.arange(8), n_boot=100, folds=[0] * 4 + [1] * 4)
    assert (r["base_auroc"], r["full_auroc"], r["gain"]) == pytest.approx((0.5, 1.0, 0.5))


def test_nan_signal_rows_leave_both_models():
    rng, g, length, z, pos, y_len, y_both = _logistic_data(n=1000, groups=200)
    s = z.copy(); s[::4] = np.nan
    r = incremental_auroc(s, length, pos, y_both, g, n_boot=100)
    assert r["n"] == 750 and r["n_pos"] == int(y_both[np.isfinite(s)].sum())
    keep = np.isfinite(s)
    r2 = incremental_auroc(s[keep], length[keep], pos[keep], y_both[keep], g[keep], n_boot=100)
    assert (r["base_auroc"], r["full_auroc"]) == pytest.approx((r2["base_auroc"], r2["full_auroc"]))


def test_fold_auroc_weighted_equals_duplicated_sample():
    rng = np.random.default_rng(3)
    s, y, h = rng.integers(0, 6, 80).astype(float), rng.integers(0, 2, 80), rng.integers(0, 3, 80)
    w = rng.integers(0, 4, 80)
    got = fold_auroc(s, y, h, weights=w[None])[0]
    S, Y, H = np.repeat(s, w), np.repeat(y, w), np.repeat(h, w)
    pairs = [(auroc(S[H == k], Y[H == k]), Y[H == k].sum() * (1 - Y[H == k]).sum()) for k in range(3)]
    assert got == pytest.approx(sum(a * n for a, n in pairs if n) / sum(n for _, n in pairs))


# --- (2) power: Hanley–McNeil against a simulation ------------------------------------------------------------------
@pytest.mark.parametrize("n_pos,n_neg", [(40, 40), (60, 60), (30, 200)])
def test_min_detectable_difference_reaches_80_percent_power(n_pos, n_neg):
    d = min_detectable_auroc_diff(n_pos, n_neg)
    R, rng = 4000, np.random.default_rng(n_pos + n_neg)
    mu = np.sqrt(2) * norm.ppf(0.5 + d)                          # binormal, equal variances: AUROC = Φ(μ/√2)
    S = np.c_[rng.normal(mu, 1, (R, n_pos)), rng.normal(0, 1, (R, n_neg))]
    Y = np.broadcast_to(np.r_[np.ones(n_pos), np.zeros(n_neg)], S.shape)
    rej = np.mean(np.abs(auroc(S, Y) - 0.5) > norm.ppf(0.975) * np.sqrt(hanley_mcneil_var(0.5, n_pos, n_neg)))
    # Monte-Carlo SE at 0.8 is 0.0063; 0.035 allows ~3 SE plus the Hanley–McNeil approximation's error for binormal
    # scores (its variance is exact for negative-exponential ones)
    assert abs(rej - 0.8) < 0.035, (d, rej)


def test_power_formula_basics():
    assert hanley_mcneil_var(0.5, 30, 70) == pytest.approx(101 / (12 * 30 * 70))
    assert min_detectable_auroc_diff(400, 400) < min_detectable_auroc_diff(100, 100) < min_detectable_auroc_diff(25, 25)
    assert np.isnan(min_detectable_auroc_diff(1, 1)) and np.isnan(min_detectable_auroc_diff(0, 10))


# --- (3) grouped folds never split a group ---------------------------------------------------------------------------
@given(st.lists(st.integers(1, 12), min_size=1, max_size=40), st.integers(2, 6), st.integers(0, 10_000), st.booleans())
@settings(max_examples=150, deadline=None)
def test_grouped_folds_never_split_a_group(sizes, k, seed, stratify):
    g = np.repeat([f"p{i}" for i in range(len(sizes))], sizes)
    y = np.random.default_rng(seed).integers(0, 2, len(g)) if stratify else None
    f = grouped_folds(g, k, seed, y)
    assert len(f) == len(g)
    for grp in set(g): assert len(set(f[g == grp])) == 1                      # each group in exactly one fold
    used = sorted(set(f.tolist()))
    assert used == list(range(min(k, len(sizes)))) or len(sizes) < 2            # every fold used (none empty)


def test_oof_predictions_come_from_models_that_never_saw_the_problem():
    rng, g, length, z, pos, y_len, y_both = _logistic_data(n=600, groups=120)
    f = grouped_folds(g, 5, 0, y_len)
    p1, _ = oof_logistic(length[:, None], y_len, folds=f)
    y2 = y_len.copy(); y2[f == 0] = 1 - y2[f == 0]                                # change labels in fold 0 only
    p2, _ = oof_logistic(length[:, None], y2, folds=f)
    assert np.array_equal(p1[f == 0], p2[f == 0])                                # fold 0's predictions ignore its labels


# --- (4) Holm–Šidák --------------------------------------------------------------------------------------------------
def test_holm_sidak_matches_statsmodels_and_textbook():
    from statsmodels.stats.multitest import multipletests
    p = np.array([0.01, 0.04, 0.03, 0.005])
    np.testing.assert_allclose(holm_sidak(p), multipletests(p, method="holm-sidak")[1])
    # by hand: sorted 0.005, 0.01, 0.03, 0.04 -> 1-(1-p)^(m-k+1), running maximum
    np.testing.assert_allclose(holm_sidak(p)[[3, 0, 2, 1]], np.maximum.accumulate([1 - .995 ** 4, 1 - .99 ** 3, 1 - .97 ** 2, .04]))
    assert np.isnan(holm_sidak([0.01, np.nan])[1]) and holm_sidak([0.01, np.nan])[0] == pytest.approx(0.01)


@given(st.lists(st.integers(-30, 300), min_size=5, max_size=12), st.integers(0, 10_000))
@settings(max_examples=200, deadline=None)
def test_adjusted_bound_agrees_with_adjusted_p(shifts, seed):
    "Lower bound at the Holm–Šidák level above 0 exactly when statsmodels' step-down rejects (one-sided 2.5 %)."
    rng = np.random.default_rng(seed)
    boots = [rng.normal(s / 100, 1, 999) for s in shifts]
    p = np.array([bootstrap_p(b) for b in boots])
    lv = holm_sidak_levels(p, 0.025)
    bound_pos = np.array([bootstrap_lower_bound(b, a) > 0 for b, a in zip(boots, lv)])
    from statsmodels.stats.multitest import multipletests
    assert bound_pos.tolist() == multipletests(p, alpha=0.025, method="holm-sidak")[0].tolist()


# --- (5) split-half first-error F1 -----------------------------------------------------------------------------------
def test_split_half_f1_known_answer():
    fe = [1, -1, 0, -1, 2, -1, 0, -1]
    sub = ["a"] * 4 + ["b"] * 4
    oracle = [np.array([float(i == e) for i in range(4)]) for e in fe]
    r = split_half_f1(oracle, fe, [f"q{i}" for i in range(8)], sub, n_boot=100)
    assert (r["a"]["value"], r["b"]["value"], r["average"]["value"]) == (1.0, 1.0, 1.0)
    # a signal high at step 0 only: either every solution is flagged at 0 (sound ones wrong) or none is; F1 0
    r0 = split_half_f1([np.array([1.0, 0, 0, 0])] * 8, fe, [f"q{i}" for i in range(8)], sub, n_boot=50)
    assert r0["average"]["value"] == 0.0


def test_split_half_thresholds_come_from_the_other_half():
    # half-specific signals: the first erroneous step scores 1 in one half and 3 in the other; sound chains score 2
    # everywhere. Half A's best threshold (in [1, 2) or [2, 3)) is wrong for half B, so cross-fitting is seen to work
    rng = np.random.default_rng(0)
    probs = [f"q{i}" for i in range(40)]
    half = split_halves(probs, None, [i % 2 == 0 for i in range(40)], seed=0)
    fe = [0 if i % 2 == 0 else -1 for i in range(40)]
    vals = [np.array([(1.0 if h == 0 else 3.0) if e == 0 else 2.0]) for e, h in zip(fe, half)]
    r = split_half_f1(vals, fe, probs, None, seed=0, n_boot=20)
    ta, tb = r["thresholds"]
    # tuned on half 0 (errors at 1, sound at 2) no threshold gets both kinds right (every F1 is 0; the scan keeps one
    # just above 2, which half 1 happens to like); tuned on half 1 (errors at 3, sound at 2) t in [2, 3) is perfect
    # there, and on half 0 it misses every error: the pooled F1 is 2·(1/2)·1/(3/2) = 2/3
    assert 2 <= tb < 3 and ta >= 2
    sc = processbench_scores(r["pred"], fe)
    assert r["all"]["value"] == pytest.approx(sc["f1"])
    assert r["all"]["value"] == pytest.approx(2 / 3)                             # out of sample it is not perfect
    assert set(np.unique(half)) == {0, 1} and abs((half == 0).sum() - 20) <= 1


def test_split_halves_keep_problems_together_and_balance():
    probs = np.repeat([f"p{i}" for i in range(30)], 3)
    sub = np.repeat(["a", "b", "c"], 30)
    err = np.tile([True, False, False], 30)
    h = split_halves(probs, sub, err, seed=1)
    for p in set(probs): assert len(set(h[probs == p])) == 1
    for s in "abc": assert abs((h[sub == s] == 0).sum() - 15) <= 3


@given(st.lists(st.tuples(st.lists(st.integers(0, 5), min_size=1, max_size=6), st.integers(-1, 5)), min_size=2, max_size=40))
@settings(max_examples=200, deadline=None)
def test_tune_threshold_equals_the_scan(chs):
    vals = [np.array(v, float) for v, _ in chs]
    labs = [e if e < len(v) else -1 for (v, e) in chs]
    tb, fb = best_f1_threshold([-v for v in vals], labs)
    t, f = tune_threshold(vals, labs)
    if fb < 0: assert np.isnan(t) and np.isnan(f); return                        # no threshold has an F1
    assert (t, f) == (-tb, fb)


# --- the perturbation effect beyond length ---------------------------------------------------------------------------
def test_length_adjusted_change_on_constructed_chains():
    rng = np.random.default_rng(0)
    n = rng.integers(3, 13, 50); ch = n * 40 + rng.integers(-30, 30, 50)
    Lb, La = np.c_[n, 1 / n, ch], np.c_[n + 1, 1 / (n + 1), ch + 35]
    only_length = length_adjusted_change(2.0 + 0.3 * n - 1 / n, 2.0 + 0.3 * (n + 1) - 1 / (n + 1), Lb, La, +1, n_boot=200)
    assert only_length["value"] == pytest.approx(0, abs=1e-9) and not only_length["agrees"]
    beyond = length_adjusted_change(0.3 * n, 0.3 * (n + 1) + 0.5, Lb, La, +1, n_boot=200)
    assert beyond["value"] == pytest.approx(0.5) and beyond["agrees"]
    assert beyond["predicted"] == pytest.approx(0.3)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(-1e4, 1e4, allow_subnormal=False), st.floats(-50, 50, allow_subnormal=False),
       st.floats(-1, 1, allow_subnormal=False), st.integers(1, 3))
def test_a_signal_made_of_its_length_covariates_reads_exactly_zero_beyond_length(seed, a, b, c, k):
    # s = a + b n + c chars is explained by length to the last bit of real arithmetic; what fp64 leaves (1e-13 on one
    # BLAS, -1e-12 on another) must read 0 in value, interval and bootstrap, and never decide `agrees`
    rng = np.random.default_rng(seed)
    n = rng.integers(3, 30, 80).astype(float); ch = n * 40 + rng.integers(-30, 30, 80)
    Lb, La = np.c_[n, ch], np.c_[n + k, ch + 35 * k]
    s, s2 = a + b * Lb[:, 0] + c * Lb[:, 1], a + b * La[:, 0] + c * La[:, 1]
    r = length_adjusted_change(s, s2, Lb, La, +1, n_boot=100, seed=seed % 7)
    assert (r["value"], r["ci_low"], r["ci_high"]) == (0.0, 0.0, 0.0) and not r["agrees"]
    assert r["predicted"] == pytest.approx(float((s2 - s).mean()), rel=1e-9, abs=1e-9 * max(1, abs(a)))


# --- the tables carry the columns ------------------------------------------------------------------------------------
@pytest.fixture
def length_confounded():
    rng = np.random.default_rng(0)
    Ls = {f"L/{i}": rng.integers(20, 400, rng.integers(4, 9)) for i in range(250)}
    Zs = {c: rng.normal(size=len(l)) for c, l in Ls.items()}
    ls = np.concatenate(list(Ls.values())); mu, sd = ls.mean(), ls.std()
    wrong = {c: np.flatnonzero(rng.random(len(l)) < 1 / (1 + np.exp(-(2 * (l - mu) / sd + Zs[c] - 2)))).tolist()
             for c, l in Ls.items()}
    chains = [Chain(c, ["w" * int(k) for k in l], f"problem {c}", error_steps=wrong[c], dataset="toy_len") for c, l in Ls.items()]

    @signal("t_length_copy", "step")
    def _copy(cs, sc): return [np.array([len(t) for t in c.steps]) + np.random.default_rng(1).normal(0, 2, c.n_steps) for c in cs]

    @signal("t_z", "step")
    def _z(cs, sc): return [Zs[c.id] for c in cs]
    yield chains, {"toy_len": dict(step="error_steps", chain="has_error")}
    for n in ("t_length_copy", "t_z"): SIGNALS.pop(n, None)


def test_tables_carry_incremental_and_power_columns(length_confounded):
    chains, tasks = length_confounded
    V, _ = compute_signals(chains, ["t_length_copy", "t_z", "length", "position"])
    T = signal_validity(V, chains, tasks, n_boot=300)
    assert list(T.columns) == VALIDITY_COLUMNS
    r = T.set_index(["signal", "level", "metric"])
    assert r.loc[("t_length_copy", "step", "auroc"), "gain_ci_low"] <= 0 <= r.loc[("t_length_copy", "step", "auroc"), "gain_ci_high"]
    assert r.loc[("t_z", "step", "auroc"), "gain_ci_low"] > 0
    n, npos = r.loc[("t_z", "step", "auroc"), ["n", "n_pos"]]
    assert r.loc[("t_z", "step", "auroc"), "power_mdd"] == pytest.approx(min_detectable_auroc_diff(int(npos), int(n - npos)))
    C = baseline_comparison(V, chains, tasks, n_boot=300).set_index(["signal", "level"])
    assert not C.loc[("t_length_copy", "step"), "beats_length"] and C.loc[("t_z", "step"), "beats_length"]
    inc = incremental_validity(V, chains, tasks, n_boot=300).set_index(["signal", "level"])
    assert inc.loc[("t_z", "step"), "incremental_gain"] == pytest.approx(r.loc[("t_z", "step", "auroc"), "incremental_gain"])


def test_perturbation_table_carries_beyond_length_columns():
    varied = [Chain(f"v/{i}", [f"Step {k} of problem {i} says {k * i + 1}." for k in range(3 + i % 7)], "Q", first_error=-1,
                    dataset="toy") for i in range(21)]
    PT = perturbation_sensitivity(varied, ["redundant_reasoning", "position"], ops=["duplicate_step"], n_boot=200)[0]
    assert list(PT.columns) == PERTURBATION_COLUMNS
    r = PT.set_index("signal")
    assert r.loc["redundant_reasoning", "change_beyond_length"] == pytest.approx(1.0)     # 0 on originals of any length
    assert r.loc["position", "agrees"] and r.loc["position", "change_beyond_length"] == pytest.approx(0, abs=1e-9)


def test_published_numbers_are_marked_as_such():
    P = published_processbench_f1().set_index("model")
    assert P.loc["Qwen2.5-Math-PRM-7B", "average"] == pytest.approx(0.735)
    assert P.loc["Math-Shepherd-PRM-7B", "average"] == pytest.approx(0.315)
    assert P.loc["GPT-4o (critic)", "average"] == pytest.approx(0.619) and P.loc["o1-mini (critic)", "average"] == pytest.approx(0.879)
    assert P.source.str.contains("other model").all()
