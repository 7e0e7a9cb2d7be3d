"Properties of the validity metrics, the perturbation operators and the content-aware alignment variants."
import re
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

from reasoning_integrity.signals.metrics import (auroc, auroc_ci, auroc_diff_ci, within_auroc, first_error_f1,
                                                  first_error_predictions, spearman_ci, perturbation_effect)
from reasoning_integrity.lines.alignment.score import (alignment_score, generalised_kl, coverage_score, dtw_alignment_score,
                                                   entailment_cost, embedding_cost, hybrid_cost, entropy_matrix, entropy_pairs)
from reasoning_integrity.signals.chains import Chain, CHAIN_OPERATORS, perturb_chain, negate_sentence, perturbation_set
from reasoning_integrity.signals.registry import SignalModels, compute_signals, SIGNALS
from reasoning_integrity.signals.validity import signal_validity, step_labels
from reasoning_integrity.models.nli import ScriptedNLI

labelled = st.integers(4, 60).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 5), min_size=n, max_size=n),          # few distinct values: many ties
    st.lists(st.integers(0, 1), min_size=n, max_size=n)))


# --- AUROC ------------------------------------------------------------------------------------------------------
@given(labelled)
@settings(max_examples=200, deadline=None)
def test_auroc_equals_sklearn(data):
    sk = pytest.importorskip("sklearn.metrics")
    s, y = np.array(data[0], float), np.array(data[1])
    if y.min() == y.max(): assert np.isnan(auroc(s, y)); return
    assert auroc(s, y) == pytest.approx(sk.roc_auc_score(y, s))


@given(labelled)
@settings(max_examples=200, deadline=None)
def test_auroc_flip_and_monotone_invariance(data):
    s, y = np.array(data[0], float), np.array(data[1])
    if y.min() == y.max(): return
    a = auroc(s, y)
    assert auroc(-s, y) == pytest.approx(1 - a)                   # reversing the signal mirrors the AUROC
    assert auroc(np.exp(s) * 3 + 7, y) == pytest.approx(a)        # a strictly increasing transform changes nothing
    assert auroc(np.zeros_like(s), y) == 0.5                      # a constant signal is chance


def test_auroc_stack_equals_rows():
    rng = np.random.default_rng(0)
    S, Y = rng.integers(0, 4, (50, 30)).astype(float), rng.integers(0, 2, (50, 30))
    np.testing.assert_allclose(auroc(S, Y), [auroc(s, y) for s, y in zip(S, Y)])


def test_auroc_ci_hand_example_and_diff_zero():
    r = auroc_ci([0.9, 0.4, 0.1, 0.4, 0.3], [1, 1, 0, 0, 0], n_boot=200)
    assert r["value"] == pytest.approx(5.5 / 6) and (r["n"], r["n_pos"]) == (5, 2)
    d = auroc_diff_ci([1, 2, 3, 4], [1, 2, 3, 4], [0, 0, 1, 1], n_boot=100)
    assert (d["value"], d["ci_low"], d["ci_high"]) == (0, 0, 0)


def test_within_auroc_is_per_chain_mean():
    # chain a: wrong step ranked top (1); chain b: wrong step ranked bottom (0) -> 0.5
    r = within_auroc([3, 1, 2, 0, 5, 6], [1, 0, 0, 1, 0, 0], ["a", "a", "a", "b", "b", "b"], n_boot=50)
    assert r["value"] == 0.5 and r["n"] == 2


# --- first-error F1: an independent transcription of ProcessBench's formula ---------------------------------------
def _official_f1(preds, labels):
    err = [p == l for p, l in zip(preds, labels) if l != -1]
    cor = [p == -1 for p, l in zip(preds, labels) if l == -1]
    a1, a2 = sum(err) / len(err) * 100, sum(cor) / len(cor) * 100
    return 2 * a1 * a2 / (a1 + a2) / 100 if a1 + a2 else float("nan")   # run_eval.py: numpy 0/0 is nan


@given(st.lists(st.tuples(st.integers(-1, 6), st.integers(-1, 6)), min_size=2, max_size=80))
@settings(max_examples=300, deadline=None)
def test_first_error_f1_matches_official_formula(pairs):
    preds, labels = [p for p, _ in pairs], [l for _, l in pairs]
    if -1 not in labels or all(l == -1 for l in labels): return
    assert first_error_f1(preds, labels, n_boot=10)["value"] == pytest.approx(_official_f1(preds, labels), nan_ok=True)


def test_first_error_predictions_threshold():
    assert first_error_predictions([[0.1, 0.8, 0.9], [0.2, 0.1]], 0.5) == [1, -1]


# --- Spearman and perturbation effects ------------------------------------------------------------------------------
def test_spearman_monotone_and_perturbation_sign():
    x = np.arange(40.0)
    assert spearman_ci(x, np.log1p(x), n_boot=100)["value"] == pytest.approx(1.0)
    up = perturbation_effect(np.zeros(20), np.ones(20), +1, n_boot=100)
    assert up["agrees"] and up["share_moved"] == 1.0
    assert not perturbation_effect(np.zeros(20), np.ones(20), -1, n_boot=100)["agrees"]


# --- the paper's score, generalised KL, and the content-aware variants -----------------------------------------------
vec = st.lists(st.floats(0, 1.585), min_size=1, max_size=10)


@given(st.integers(2, 5).flatmap(lambda n: st.tuples(st.just(n), st.lists(st.floats(0, 1.585), min_size=n * (n - 1) // 2,
                                                                          max_size=n * (n - 1) // 2),
                                                      st.lists(st.floats(0, 1.585), min_size=n * (n - 1) // 2,
                                                               max_size=n * (n - 1) // 2))))
@settings(max_examples=300, deadline=None)
def test_every_alignment_score_at_most_100(args):
    n, a, b = args
    H1, H2 = np.zeros((n, n)), np.zeros((n, n))
    H1[np.triu_indices(n, 1)] = a; H2[np.triu_indices(n, 1)] = b
    for kw in (dict(), dict(direction="model||ref"), dict(norm="max"), dict(norm="max", direction="model||ref")):
        assert alignment_score(H1, H2, **kw) <= 100 + 1e-9


@given(st.lists(st.tuples(st.floats(1e-6, 5), st.floats(1e-6, 5)), min_size=1, max_size=20))
@settings(max_examples=300, deadline=None)
def test_generalised_kl_nonnegative_and_kl_on_distributions(pq):
    p, q = np.array([x for x, _ in pq]), np.array([y for _, y in pq])
    assert generalised_kl(p, q) >= -1e-12
    p, q = p / p.sum(), q / q.sum()
    assert generalised_kl(p, q) == pytest.approx(float(np.sum(p * np.log(p / q))), abs=1e-12)


@given(st.integers(1, 6), st.integers(1, 6), st.integers(0, 10_000))
@settings(max_examples=200, deadline=None)
def test_content_variants_bounded(n, m, seed):
    rng = np.random.default_rng(seed)
    E_mr, E_rm = rng.random((m, n)), rng.random((n, m))
    assert 0 <= coverage_score(E_mr, E_rm)["score"] <= 100
    Er, Em = rng.normal(size=(n, 8)), rng.normal(size=(m, 8))
    for C in (entailment_cost(E_mr, E_rm), embedding_cost(Er, Em), hybrid_cost(E_mr, E_rm, Er, Em)):
        assert C.shape == (n, m) and 0 <= dtw_alignment_score(C) <= 100


def test_paper_score_blind_to_content_while_coverage_is_not():
    "With a perfect NLI, an all-entailing reference vs an all-contradicting chain scores 100; coverage scores 0."
    pairs = entropy_pairs(3)
    H_ent = entropy_matrix([[1, 0, 0]] * 3, pairs, 3)
    H_con = entropy_matrix([[0, 0, 1]] * 3, pairs, 3)
    assert alignment_score(H_ent, H_con) == 100.0
    assert coverage_score(np.zeros((3, 3)), np.zeros((3, 3)))["score"] == 0.0


# --- perturbation operators change what they claim ------------------------------------------------------------------
word = st.text("abcdefghij", min_size=1, max_size=6)
sentence = st.lists(word, min_size=1, max_size=8).map(lambda w: " ".join(w).capitalize() + ".")
step = st.one_of(sentence, st.tuples(sentence, st.integers(0, 999)).map(lambda t: f"{t[0][:-1]} is {t[1]}."))
chains = st.lists(step, min_size=1, max_size=7).map(lambda s: Chain("c", s, "Q?", first_error=-1, dataset="t"))
pool = [Chain("other", ["Mars is red.", "The sea is salty."], dataset="t")]


@given(chains, st.integers(0, 50))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_operators_change_what_they_claim(c, seed):
    for op in CHAIN_OPERATORS:
        p = perturb_chain(c, op, seed, pool)
        if p is None: continue
        k, old, new = p.meta["perturbation"]["site"], c.steps, p.steps
        assert new != old and p.first_error == k and p.meta["source"] == "c"
        if op == "delete_step":
            assert len(new) == len(old) - 1 and new == old[:k] + old[k + 1:] and 0 < k < len(old) - 1
        elif op == "duplicate_step":
            assert len(new) == len(old) + 1 and new[k] == new[k - 1] and new[:k] + new[k + 1:] == old
        elif op == "swap_steps":
            assert new[k] == old[k + 1] and new[k + 1] == old[k] and new[:k] + new[k + 2:] == old[:k] + old[k + 2:]
        else:   # one step changed in place, every other step untouched
            assert len(new) == len(old) and [i for i in range(len(old)) if new[i] != old[i]] == [k]
            if op == "shuffle_words": assert sorted(new[k].split()) == sorted(old[k].split())
            if op == "replace_step": assert new[k] in pool[0].steps
            if op == "change_number":   # exactly one number changed, the text around the numbers kept
                nums = lambda s: re.findall(r"-?\d+(?:\.\d+)?", s)
                strip = lambda s: re.sub(r"-?\d+(?:\.\d+)?", "#", s)
                assert strip(new[k]) == strip(old[k]) and sum(a != b for a, b in zip(nums(new[k]), nums(old[k]))) == 1
                assert not any(x.startswith("-") for x in nums(new[k])) or any(x.startswith("-") for x in nums(old[k]))
            if op == "negate_statement":   # one sentence of the step replaced by its negation
                m = p.meta["perturbation"]
                assert negate_sentence(m["before"]) == m["after"] and m["before"] in old[k] and m["after"] in new[k]

def test_perturbation_set_counts_what_did_not_apply():
    pairs, skipped = perturbation_set([Chain("a", ["One step only."], first_error=-1, dataset="t")], seed=0)
    assert skipped["delete_step"] == 1 and skipped["swap_steps"] == 1 and skipped["change_number"] == 1
    assert {p.meta["perturbation"]["op"] for _, p in pairs} == {"negate_statement", "duplicate_step", "shuffle_words"}


# --- registry on constructed labels ------------------------------------------------------------------------------------
def test_constant_and_position_signals_on_constructed_labels():
    cs = [Chain(f"p/{i}", ["a", "b", "c", "d"], "Q", first_error=fe, dataset="processbench", meta={"subset": "gsm8k"})
          for i, fe in enumerate([3, 2, -1, -1, 1, -1])]
    V, cov = compute_signals(cs, ["constant", "position"])
    T = signal_validity(V, cs, n_boot=100).set_index(["signal", "level", "metric", "dataset"])
    assert T.loc[("constant", "step", "auroc", "processbench"), "value"] == 0.5
    # position: the first wrong step is always the last step kept in its chain, so it beats every earlier step of its
    # chain; pooled with the sound chains' steps (positions 0..3/4) the AUROC is computable by hand
    pos = np.concatenate([np.arange(4) / 4 for _ in cs])
    y = np.concatenate([step_labels(c, "first_error") for c in cs])
    keep = np.isfinite(y)
    assert T.loc[("position", "step", "auroc", "processbench"), "value"] == pytest.approx(auroc(pos[keep], y[keep]))


def test_scripted_nli_contradiction_signal():
    nli = ScriptedNLI({("A is big.", "A is not big."): (0, 0, 1)})
    c = Chain("x", ["A is big.", "A is not big."], "Q", dataset="t")
    V, _ = compute_signals([c], ["nli_contradiction"], SignalModels(nli=nli, nli_window=1))
    assert V[V.step == 1].value.item() == 1.0 and V[V.step == -1].value.item() == 1.0
    assert "nli_contradiction" in SIGNALS


def test_perturbation_table_when_an_operator_skips_some_chains():
    "A sound chain an operator cannot apply to (one step: nothing to delete) leaves a gap in the length-adjusted change, never a crash."
    from reasoning_integrity.signals.validity import perturbation_sensitivity
    chains = [Chain(f"c{i}", [f"step {j} of chain {i} says {j * i}" for j in range(1 if i == 0 else 4 + i % 3)],
                    question="q", first_error=-1, dataset="processbench") for i in range(12)]
    pert, _ = perturbation_sensitivity(chains, ["length", "position"], SignalModels(), ops=["delete_step"], n_boot=50)
    d = pert[(pert.operator == "delete_step") & (pert.signal == "position")].iloc[0]
    assert d.n == 11 and d.n_skipped == 1          # the one-step chain has nothing to delete
    assert d.mean_change < 0 and abs(d.change_beyond_length) < 1e-9   # (n-1)/n falls, and all of it is the step count
