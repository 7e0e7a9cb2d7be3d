"""Alignment Score / SCOS: properties of the pure metrics, the step extractor on untrusted text, and the NLI cache
(a warm re-run of a scoring batch makes no forward pass)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from reasoning_integrity.lines.alignment.score import (semantic_entropy, entropy_pairs, entropy_matrix, ssd,
    alignment_score, align_chain, model_pairs, dtw_matches, redundant_reasoning, thematic_shift, scos_select,
    sc_cot_select)
from reasoning_integrity.lines.alignment.scos import extract_chain, format_chain, ChainScorer
from reasoning_integrity.models.doubles import OverlapNLI

probs = st.lists(st.floats(0, 1), min_size=3, max_size=3).filter(lambda p: sum(p) > 1e-3).map(lambda p: np.array(p) / sum(p))


@settings(max_examples=200, deadline=None)
@given(probs)
def test_entropy_bounds(p):
    h = semantic_entropy(p)
    assert -1e-12 <= h <= np.log2(3) + 1e-9


def _upper(v, n):
    H = np.zeros((n, n)); H[np.triu_indices(n, 1)] = v; return H


tri = st.integers(2, 5).flatmap(lambda n: st.tuples(st.just(n),
        st.lists(st.floats(0, 1.6), min_size=n * (n - 1) // 2, max_size=n * (n - 1) // 2),
        st.lists(st.floats(0, 1.6), min_size=n * (n - 1) // 2, max_size=n * (n - 1) // 2)))


@settings(max_examples=200, deadline=None)
@given(tri, st.sampled_from(["ref||model", "model||ref"]))
def test_ssd_is_a_divergence(t, direction):
    n, a, b = t
    A, B = _upper(a, n), _upper(b, n)
    assert ssd(A, B, direction=direction) >= -1e-9                 # KL is non-negative
    assert abs(ssd(A, A, direction=direction)) < 1e-9              # zero on itself
    assert alignment_score(A, B, direction=direction) <= 100 + 1e-7
    assert abs(ssd(A, B, direction="ref||model") - ssd(B, A, direction="model||ref")) < 1e-9  # the two directions swap roles


def test_ssd_by_hand_both_directions():
    A, B = _upper([1, 1, 2], 3), _upper([1, 1, 1], 3)
    assert ssd(A, B) == pytest.approx(0.5 * np.log(0.75) + 0.5 * np.log(1.5), abs=1e-7)      # 0.058892
    assert ssd(A, B, direction="model||ref") == pytest.approx((2 * np.log(4 / 3) + np.log(2 / 3)) / 3, abs=1e-7)  # 0.056633


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 4), st.integers(1, 7), st.data())
def test_policies_shape_or_drop(n, m, data):
    H = _upper(data.draw(st.lists(st.floats(0, 1.6), min_size=m * (m - 1) // 2, max_size=m * (m - 1) // 2)), m)
    cost = np.array(data.draw(st.lists(st.floats(0, 2), min_size=n * m, max_size=n * m))).reshape(n, m)
    for pol in ("all_valid", "truncate", "dtw"):
        out = align_chain(np.zeros((n, n)), H, pol, cost=cost)
        assert out is None or out.shape == (n, n)
        if out is not None and pol != "dtw":
            # the policy reads only the cells model_pairs lists
            cells = model_pairs(n, m, pol)
            Hz = np.zeros_like(H)
            for k, l in cells: Hz[k, l] = H[k, l]
            assert np.allclose(align_chain(np.zeros((n, n)), Hz, pol), out)
    if m < n: assert align_chain(np.zeros((n, n)), H, "dtw", cost=cost) is None   # m < n always merges: dropped


def test_error_types_on_constructed_chain():
    ang = np.deg2rad([0, 10, 90, 100]); E = np.c_[np.cos(ang), np.sin(ang)]
    assert thematic_shift(E) == 1
    assert redundant_reasoning(["Step 1: A cat.", "a cat", "A dog.", "Conclusion: a dog"]) == 2


def test_scos_and_sc_cot_pick_expected():
    assert scos_select([["a", "a"], ["a", "b"], None]) == 1
    assert sc_cot_select(["C", "B", "B"]) == 1


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_extract_never_raises(text):
    c = extract_chain(text, choices=["yes", "no"])
    assert c.valid == (c.statements is not None)
    if not c.valid: assert any(p.kind in ("no_steps", "no_conclusion") for p in c.problems)


line = st.text(alphabet=st.characters(whitelist_categories=("Ll", "Lu", "Nd"), whitelist_characters=" ,"), min_size=1, max_size=30)\
         .map(str.strip).filter(lambda s: s and not s[0].isdigit())


@settings(max_examples=200, deadline=None)
@given(st.lists(line, min_size=2, max_size=5), st.sampled_from("ABCDE"))
def test_format_extract_roundtrip(stmts, ans):
    c = extract_chain(format_chain(stmts, ans))
    assert c.statements == stmts and c.answer == ans


def test_overlap_nli_rows_are_distributions():
    P = OverlapNLI().predict(["a b c", "x"], ["a b", "not x"])
    assert np.allclose(P.sum(1), 1) and (P >= 0).all()


def test_warm_rescore_makes_no_forward_pass(tmp_path):
    nli_mod = pytest.importorskip("reasoning_integrity.models.nli")
    pytest.importorskip("transformers")
    model = nli_mod.make_tiny_nli_model(tmp_path / "tiny")
    emb = lambda texts: np.eye(len(texts), 8)[:, :8] if len(texts) <= 8 else np.ones((len(texts), 8))
    refs = [["Ants dig.", "Bees buzz.", "Cats nap."]]
    chains = [["Ants dig.", "Dogs bark.", "Bees buzz.", "Cats nap."]]
    a = nli_mod.NLIModel(model, cache_path=tmp_path / "nli.sqlite")
    ChainScorer(a, emb).score(refs, chains)
    assert a.n_forward > 0
    b = nli_mod.NLIModel(model, cache_path=tmp_path / "nli.sqlite")   # a fresh process: only the disk cache
    r = ChainScorer(b, emb).score(refs, chains)
    assert b.n_forward == 0 and b.n_cached > 0
    assert np.isfinite(r.score_truncate[0])


def test_decompose_recovers_coefficients_and_keeps_unused_terms():
    import pandas as pd
    from reasoning_integrity.lines.alignment.score import decompose
    rng = np.random.default_rng(1)
    n = 300
    df = pd.DataFrame(dict(LD=rng.integers(0, 2, n), TS=rng.integers(0, 4, n), RR=0, CR=rng.integers(0, 2, n)))
    df["alignment_score"] = 100 * (1 - (0.23 * df.LD + 0.76 * df.TS + 0.11 * df.CR + rng.normal(0, 0.01, n)))
    reg = decompose(df).set_index("term")
    assert list(reg.index) == ["LD", "TS", "RR", "CR", "R2"]
    assert np.allclose(reg.loc[["LD", "TS", "CR"], "coef"], [0.23, 0.76, 0.11], atol=0.01)
    assert np.isnan(reg.loc["RR", "coef"]) and reg.loc["R2", "r2"] == "uncentred" and reg.loc["R2", "coef"] > 0.99


def test_semantic_redundancy_changes_the_scos_pick():
    # one-hot "embeddings" by first letter: 'apples' ~ 'ants' semantically, never exactly
    E = lambda texts: np.eye(26)[[ord(t[0]) - 97 for t in texts]]
    chains = [["ants dig", "ants dig", "cats dig"], ["ants dig", "apples fall", "cats dig"]]
    assert scos_select(chains, mode="rr") == 1                                     # exact: 1 vs 0 repeats
    assert scos_select(chains, [E(c) for c in chains], mode="rr", rr_threshold=0.9) == 0   # semantic: 1 vs 1 -> first
