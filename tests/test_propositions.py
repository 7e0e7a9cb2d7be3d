"""Property tests of the paper's Propositions 1–6 (§6) for the divergence, complexity and score.

The paper states its propositions for "a finite alignment mapping π". Our D can use a *fixed* π (padding, or
explicit pairs) or the *DTW-optimal* π, which is a minimum over paths and so depends on both trajectories.
What holds where:

| proposition | fixed π (pad / explicit) | DTW-optimal π |
|---|---|---|
| 1 boundedness 0 ≤ D ≤ \\|π\\|·δ_max | holds | holds (π = the DTW path) |
| 2 local perturbation D ≥ δ(B_k, B̃_k) | holds for the step-by-step π | **fails** (counterexample below); the weaker bound D ≥ max(min_s δ(B_k, B̃_s), min_t δ(B_t, B̃_k)) holds |
| 3 extension monotonicity | holds when π_ext ⊇ π (pad of equal-length trajectories, or added pairs) | **fails** (counterexample below) |
| 4 complexity ≥ αN, +α per appended state | holds (no alignment) | — |
| 5 Score ≤ 0; < 0 when N ≥ 1 and α > 0 | holds | holds |
| 6 δ invariant under a rewrite ⇒ D = 0 | holds | holds (DTW ≤ pad = 0) |

plus D(T, T) = 0 for every δ and D(T1, T2) = D(T2, T1) for symmetric δ, under both alignments.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

from reasoning_integrity.lines.trajectory.types import BeliefState, Trajectory
from reasoning_integrity.lines.trajectory.divergence import (align_dtw, align_pad, composite_delta, divergence, dtw_batch,
                                                    hashing_embedder, kl_delta, probabilistic_delta, semantic_delta,
                                                    structural_delta)
from reasoning_integrity.lines.trajectory.complexity import complexity, integrity_score, evaluate_trajectory

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

EMBED = hashing_embedder(dim=512)
BOUNDED = {
    "structural": structural_delta,
    "jensen_shannon": probabilistic_delta,
    "semantic": semantic_delta(EMBED),
    "semantic_clip": semantic_delta(EMBED, "clip"),
    "composite": composite_delta([structural_delta, probabilistic_delta, semantic_delta(EMBED)], [1, 2, 1]),
}
SYMMETRIC = BOUNDED
ALL = {**BOUNDED, "kl": kl_delta(1e-2)}

HYPS = ["12", "14", "28", "36", "Paris", "yes"]
CONSTRAINTS = ["3 boxes of 12", "8 given away", "36 - 8 = 28", "x > 0"]


@st.composite
def states(draw, allow_empty=True):
    hs = draw(st.lists(st.sampled_from(HYPS), min_size=0 if allow_empty else 1, max_size=4, unique=True))
    w = draw(st.lists(st.floats(0.05, 1.0), min_size=len(hs), max_size=len(hs)))
    ks = draw(st.lists(st.sampled_from(CONSTRAINTS), max_size=3, unique=True))
    return BeliefState(hypotheses=hs, confidence=[x / sum(w) for x in w] if hs else [], constraints=ks)


def trajectories(min_size=1, max_size=6):
    return st.lists(states(), min_size=min_size, max_size=max_size).map(lambda s: Trajectory(states=s))


def rewrite(s: BeliefState, rng: np.random.Generator) -> BeliefState:
    "A semantics-preserving rewrite: case, spacing, trailing full stops, order of hypotheses and constraints."
    order = rng.permutation(len(s.hypotheses))
    style = lambda x: (x.upper() if rng.random() < .5 else x.lower()) + ("." if rng.random() < .5 else "")
    return BeliefState(hypotheses=[" " + style(s.hypotheses[i]) for i in order],
                       confidence=[s.confidence[i] for i in order],
                       constraints=[style(c).replace(" ", "  ") for c in rng.permutation(s.constraints)])


# Proposition 1: 0 <= D <= |π|·δ_max, for DTW, padding and any fixed π ---------------------------------------
@SETTINGS
@given(trajectories(), trajectories(), st.sampled_from(sorted(BOUNDED)), st.sampled_from(["dtw", "pad"]))
def test_prop1_bounded(T1, T2, name, alignment):
    d = BOUNDED[name]
    r = divergence(T1, T2, d, alignment)
    assert d.delta_max == 1.0
    assert ((r.matrix >= 0) & (r.matrix <= d.delta_max)).all()
    assert 0 <= r.D <= len(r.path) * d.delta_max + 1e-12
    assert 0 <= r.D_normalized <= d.delta_max + 1e-12


@SETTINGS
@given(trajectories(), trajectories(), st.data())
def test_prop1_bounded_fixed_pi(T1, T2, data):
    pairs = data.draw(st.lists(st.tuples(st.integers(0, len(T1) - 1), st.integers(0, len(T2) - 1)), min_size=1, max_size=12))
    r = divergence(T1, T2, BOUNDED["composite"], pairs)
    assert r.path == pairs and 0 <= r.D <= len(pairs)


# Proposition 2: local perturbation ---------------------------------------------------------------------------
@SETTINGS
@given(trajectories(min_size=1), states(), st.data(), st.sampled_from(sorted(BOUNDED)))
def test_prop2_local_perturbation(T, new, data, name):
    d = BOUNDED[name]
    k = data.draw(st.integers(0, len(T) - 1))
    P = Trajectory(states=T.states[:k] + [new] + T.states[k + 1:])
    dk = float(d([T.states[k]], [new])[0, 0])
    # fixed step-by-step π (padding of equal lengths contains (k, k)): the paper's bound
    assert divergence(T, P, d, "pad").D >= dk - 1e-12
    # DTW: every state is aligned to something, so D is at least the closest match of the changed state
    r = divergence(T, P, d, "dtw")
    assert r.D >= max(r.matrix[k, :].min(), r.matrix[:, k].min()) - 1e-12


def test_prop2_fails_for_dtw():
    "DTW may pair the changed state with a neighbour that is closer than its counterpart: D < δ(B_k, B̃_k)."
    A = BeliefState(["a"], [1.0]); B = BeliefState(["b", "c"], [.5, .5]); C = BeliefState(["c"], [1.0])
    base, pert = [A, B, C], [A, A, C]  # differ at k = 1: δ(B, A) = 1 (disjoint)
    assert structural_delta([B], [A])[0, 0] == 1.0
    assert divergence(base, pert, structural_delta, "pad").D == 1.0
    r = divergence(base, pert, structural_delta, "dtw")
    assert r.path == [(0, 0), (0, 1), (1, 2), (2, 2)] and r.D == pytest.approx(0.5)  # B paired with C instead


# Proposition 3: extension monotonicity ----------------------------------------------------------------------
@SETTINGS
@given(st.data(), st.sampled_from(sorted(ALL)))
def test_prop3_extension_fixed_pi(data, name):
    d = ALL[name]
    n = data.draw(st.integers(1, 5)); m = data.draw(st.integers(0, 4))
    T1 = data.draw(st.lists(states(), min_size=n + m, max_size=n + m))
    T2 = data.draw(st.lists(states(), min_size=n + m, max_size=n + m))
    # padding of equal-length trajectories is step by step, so the extension's π contains the original's
    assert divergence(T1, T2, d, "pad").D >= divergence(T1[:n], T2[:n], d, "pad").D - 1e-12
    # any fixed π extended by more pairs
    pi = align_dtw(d(T1[:n], T2[:n]))
    extra = [(n + i, n + i) for i in range(m)]
    assert divergence(T1, T2, d, pi + extra).D >= divergence(T1[:n], T2[:n], d, pi).D - 1e-12


def test_prop3_fails_for_dtw():
    "Appending a state to each trajectory can let DTW re-route and lower D."
    A, B = BeliefState(["a"], [1.0]), BeliefState(["b"], [1.0])
    before = divergence([A], [A, B], structural_delta, "dtw").D
    after = divergence([A, B], [A, B, B], structural_delta, "dtw").D
    assert (before, after) == (1.0, 0.0)


# Proposition 4: complexity grows at least linearly ----------------------------------------------------------
@SETTINGS
@given(trajectories(), st.lists(states(), min_size=1, max_size=5), st.floats(0.01, 3), st.floats(0, 3), st.floats(0, 3))
def test_prop4_complexity_growth(T, more, alpha, beta, gamma):
    c = complexity(T, alpha, beta, gamma)
    assert c >= alpha * T.N - 1e-12
    ext = Trajectory(states=T.states + more)
    assert complexity(ext, alpha, beta, gamma) >= c + alpha * len(more) - 1e-9


# Proposition 5: Score <= 0, and < 0 when N >= 1 and alpha > 0 ------------------------------------------------
@SETTINGS
@given(trajectories(), trajectories(), st.sampled_from(sorted(ALL)), st.sampled_from(["dtw", "pad"]),
       st.floats(0.01, 2), st.floats(0, 2), st.floats(0, 2), st.floats(0, 2), st.booleans())
def test_prop5_score_bounds(T, R, name, alignment, lam, alpha, beta, gamma, normalized):
    s = integrity_score(T, R, ALL[name], lam, alignment, normalized, alpha, beta, gamma)
    assert s <= 0
    if T.N >= 1 and alpha > 0: assert s < 0
    row = evaluate_trajectory(T, R, ALL[name], lam, alignment, normalized, alpha, beta, gamma)
    assert row["score"] == pytest.approx(-(row["D_normalized"] if normalized else row["D"]) - lam * row["C"])


def test_prop5_degenerate_zero():
    s = BeliefState(["28"], [1.0])
    assert integrity_score([s], [s]) == 0.0  # N = 0, certain, identical: the degenerate case


# Proposition 6: a δ invariant under a semantics-preserving rewrite gives D = 0 --------------------------------
@SETTINGS
@given(trajectories(), st.integers(0, 2**32 - 1), st.sampled_from(sorted(BOUNDED)), st.sampled_from(["dtw", "pad"]))
def test_prop6_invariance(T, seed, name, alignment):
    rng = np.random.default_rng(seed)
    R = Trajectory(states=[rewrite(s, rng) for s in T.states])
    d = BOUNDED[name]
    assert np.abs(np.diag(d(T, R))).max() <= 1e-12  # δ is invariant under the rewrite ...
    assert divergence(T, R, d, alignment).D <= 1e-12  # ... so D vanishes


# D(T, T) = 0 and symmetry -----------------------------------------------------------------------------------------
@SETTINGS
@given(trajectories(), st.sampled_from(sorted(ALL)), st.sampled_from(["dtw", "pad"]))
def test_self_divergence_zero(T, name, alignment):
    assert divergence(T, T, ALL[name], alignment).D == pytest.approx(0.0, abs=1e-12)


@SETTINGS
@given(trajectories(), trajectories(), st.sampled_from(sorted(SYMMETRIC)), st.sampled_from(["dtw", "pad"]))
def test_symmetry(T1, T2, name, alignment):
    d = SYMMETRIC[name]
    assert d.symmetric
    np.testing.assert_allclose(d(T1, T2), d(T2, T1).T, atol=1e-12)
    assert divergence(T1, T2, d, alignment).D == pytest.approx(divergence(T2, T1, d, alignment).D, abs=1e-9)


def test_kl_is_asymmetric():
    a, b = BeliefState(["x"], [1.0]), BeliefState(["x", "y"], [.5, .5])
    assert not kl_delta().symmetric
    assert divergence([a], [b], kl_delta()).D != pytest.approx(divergence([b], [a], kl_delta()).D)


# DTW never exceeds padding, and the batched DTW agrees with the single one ------------------------------------------
@SETTINGS
@given(trajectories(), trajectories(), st.sampled_from(sorted(ALL)))
def test_dtw_at_most_pad(T1, T2, name):
    d = ALL[name]
    assert divergence(T1, T2, d, "dtw").D <= divergence(T1, T2, d, "pad").D + 1e-12


@SETTINGS
@given(st.integers(1, 7), st.integers(1, 7), st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_dtw_batch_matches(n, m, B, seed):
    M = np.random.default_rng(seed).random((B, n, m))
    D, L = dtw_batch(M)
    for b in range(B):
        p = align_dtw(M[b])
        assert D[b] == pytest.approx(sum(M[b][i, j] for i, j in p)) and L[b] == len(p)
    assert list(align_pad(n, m))[-1] == (n - 1, m - 1)
