"""Issue 26, point 7: the pairwise signals' cost is capped. A chain whose NLI pair count (quadratic in the chain and
reference lengths) is over `max_pairs` is not scored, with a warning naming the chain, the count and the parameter,
and the reason in `score_chain`'s `skipped` / `compute_signals`'s coverage; a chain under the cap is scored as before.
The models are fast stand-ins (a scripted NLI, a hashing embedder), so the timings measure the cap, not a model:
without the cap the 2,000 × 2,000 case asks for nearly 12 million NLI pairs and does not finish (the timeout fails it)."""
import time
import zlib

import numpy as np
import pytest

from reasoning_integrity.run.api import compare_chains, score_chain
from reasoning_integrity.models.nli import ScriptedNLI

ALIGNMENT = {"alignment_score", "alignment_score_alg1", "alignment_score_gkl", "entailment_coverage", "dtw_nli",
             "dtw_emb", "dtw_hybrid"}


class HashEmb:
    "A fast deterministic embedder: 32 dimensions seeded by the text's CRC."
    def __call__(self, texts, **kw):
        return np.stack([np.random.default_rng(zlib.crc32(t.encode())).random(32) for t in texts])


def _chain(n, tag):
    return [f"{tag} step {i}: {i} plus {i} is {2 * i}" for i in range(n)]


@pytest.mark.timeout(60)
def test_long_chain_against_long_reference_is_capped_fast():
    steps, ref = _chain(2000, "model"), _chain(2000, "ref")
    t0 = time.time()
    with pytest.warns(UserWarning, match=r"needs 11,998,002 NLI pairs, over max_pairs=10,000") as rec:
        r = score_chain(steps, question="what is doubled?", reference=ref, nli=ScriptedNLI(), emb=HashEmb())
    took = time.time() - t0
    assert took < 15, took                                   # seconds, not hours (about 1 s on the 2-core machine)
    assert sum("max_pairs" in str(w.message) for w in rec) == 1      # one warning for the seven alignment signals
    assert "'chain'" in str(next(w.message for w in rec if "max_pairs" in str(w.message)))   # it names the chain
    capped = {k for k, v in r.skipped.items() if "max_pairs=10,000" in v}
    assert capped == ALIGNMENT, r.skipped
    assert r.skipped["alignment_score"] == "needs 11,998,002 NLI pairs, over max_pairs=10,000"
    assert not ALIGNMENT & set(r.summary.signal)
    # the linear signals still ran on all 2,000 steps (nli_contradiction: 2 pairs a step, under the cap)
    assert {"position", "embedding_drift", "nli_contradiction", "redundant_reasoning"} <= set(r.summary.signal)
    assert len(r.steps) == 2000 and np.isfinite(r.steps.nli_contradiction).all()


@pytest.mark.timeout(90)
def test_short_chain_is_scored_and_the_cap_is_a_parameter():
    steps = _chain(30, "s")
    r = score_chain(steps, question="q", reference=steps, nli=ScriptedNLI(), emb=HashEmb())
    assert not any("max_pairs" in v for v in r.skipped.values()), r.skipped
    v = r.summary.set_index("signal").value
    assert ALIGNMENT <= set(v.index)
    assert v["alignment_score"] == pytest.approx(100.0)     # its own reference: identical entropy triangles
    assert v["dtw_emb"] == pytest.approx(100.0)             # and the diagonal DTW path at cosine 1
    # 30 × 30 asks for 435 + 435 + 2 + 1,800 = 2,672 pairs: a smaller cap skips it, None lifts any cap
    with pytest.warns(UserWarning, match="needs 2,672 NLI pairs, over max_pairs=2,671"):
        r2 = score_chain(steps, question="q", reference=steps, nli=ScriptedNLI(), emb=HashEmb(), max_pairs=2671)
    assert {k for k, v in r2.skipped.items() if "max_pairs" in v} == ALIGNMENT
    r3 = score_chain(steps, question="q", reference=steps, nli=ScriptedNLI(), emb=HashEmb(), max_pairs=None)
    assert ALIGNMENT <= set(r3.summary.signal)


class BarNLI(ScriptedNLI):
    def predict(self, premises, hypotheses, progress=False):
        self.bars = [*getattr(self, "bars", []), (len(premises), progress)]
        return super().predict(premises, hypotheses)


def test_progress_bar_past_the_threshold():
    steps = _chain(30, "s")
    nli = BarNLI()
    score_chain(steps, question="q", reference=steps, nli=nli, emb=HashEmb(), signals=["alignment_score", "nli_contradiction"])
    # the 2,672-pair alignment batch (deduplicated before the call) is over 1,000 pairs: a bar; the 58-pair call is not
    assert [p for _, p in nli.bars] == [True, False], nli.bars


def test_compute_signals_reports_capped_chains():
    from reasoning_integrity.signals.chains import Chain
    from reasoning_integrity.signals.registry import SignalModels, compute_signals
    small, big = _chain(3, "a"), _chain(120, "b")
    chains = [Chain("small", small, "q", reference=small, dataset="d"), Chain("big", big, "q", reference=big, dataset="d")]
    with pytest.warns(UserWarning, match="chain 'big' needs"):
        V, cov = compute_signals(chains, ["alignment_score", "nli_contradiction"], SignalModels(nli=ScriptedNLI(), emb=HashEmb()))
    c = cov.set_index("signal")
    assert c.loc["alignment_score", "n_scored"] == 1 and c.loc["alignment_score", "skipped"] == "1 over max_pairs=10,000"
    assert c.loc["nli_contradiction", "n_scored"] == 2 and c.loc["nli_contradiction", "skipped"] == ""
    a = V[(V.signal == "alignment_score")].set_index("chain_id").value
    assert a["small"] == pytest.approx(100.0) and np.isnan(a["big"])


@pytest.mark.timeout(60)
def test_compare_chains_has_a_cell_cap():
    a = _chain(2100, "a")
    with pytest.raises(ValueError, match=r"2,100 × 2,100 steps is 4,410,000 step pairs, over max_cells=4,000,000"):
        compare_chains(a, a, emb=HashEmb())
    r = compare_chains(a[:40], a[:50], emb=HashEmb(), max_cells=2000)       # at the cap: computed
    assert r.matrix.shape == (40, 50)
    with pytest.raises(ValueError, match="max_cells=1,999"):
        compare_chains(a[:40], a[:50], emb=HashEmb(), max_cells=1999)
