"""NLIModel: label order read from the model's config, cache hits without forward passes, deduplication.

All tests use tiny randomly initialised BERT classifiers built in a tmp dir (no trained weights needed)."""
import math

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from reasoning_integrity.models.nli import (LABELS, NLIModelMissing, NLIModel, forward_probs, label_columns,
                                            make_tiny_nli_model)

PREM = ["A man is playing a guitar.", "A dog runs in the park.", "Two kids eat lunch.", "The sky is blue."]
HYP = ["A man plays music.", "A cat sleeps.", "Children are eating.", "It is raining."]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return make_tiny_nli_model(tmp_path_factory.mktemp("tiny") / "model",
                               id2label={0: "neutral", 1: "CONTRADICTION", 2: "Entailment"})


def _raw(path, prem, hyp):
    from transformers import AutoModelForSequenceClassification, AutoTokenizer
    m = AutoModelForSequenceClassification.from_pretrained(path).eval()
    return forward_probs(m, AutoTokenizer.from_pretrained(path), prem, hyp)


@pytest.mark.parametrize("id2label, cols", [
    ({0: "neutral", 1: "CONTRADICTION", 2: "Entailment"}, [2, 0, 1]),
    ({0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}, [2, 1, 0]),   # roberta-large-mnli's order
    ({0: "entailment", 1: "neutral", 2: "contradiction"}, [0, 1, 2]),
])
def test_label_order_mapping(tmp_path, id2label, cols):
    path = make_tiny_nli_model(tmp_path / "m", id2label=id2label, seed=1)
    assert label_columns(id2label) == cols
    got = NLIModel(path, cache=False, precision="fp32").predict(PREM, HYP)   # exact: compared with fp32 logits
    raw = _raw(path, PREM, HYP)
    np.testing.assert_allclose(got, raw[:, cols], atol=1e-5)
    # each returned column really is the probability the model gives that label
    for j, name in enumerate(LABELS):
        k = next(i for i, l in id2label.items() if l.lower() == name)
        np.testing.assert_allclose(got[:, j], raw[:, k], atol=1e-5)


def test_unnamed_labels_refused_unless_given(tmp_path):
    path = make_tiny_nli_model(tmp_path / "m", id2label={0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"})
    with pytest.raises(ValueError, match="id2label"):
        NLIModel(path, cache=False).predict(PREM[:1], HYP[:1])
    got = NLIModel(path, cache=False, precision="fp32", id2label={0: "contradiction", 1: "entailment", 2: "neutral"}).predict(PREM, HYP)
    np.testing.assert_allclose(got, _raw(path, PREM, HYP)[:, [1, 2, 0]], atol=1e-5)


def test_cache_hit_no_forward(tiny, tmp_path):
    db = tmp_path / "nli.sqlite"
    first = NLIModel(tiny, cache_path=db, batch_size=2)
    a = first.predict(PREM, HYP)
    assert first.n_forward == 2 and first.n_scored == 4
    assert first.predict(PREM, HYP).tolist() == a.tolist() and first.n_forward == 2   # in-memory hit
    warm = NLIModel(tiny, cache_path=db, batch_size=2)                            # fresh process-like scorer
    b = warm.predict(PREM[::-1], HYP[::-1])
    assert warm.n_forward == 0 and warm.n_scored == 0 and warm.n_cached == 4
    assert warm._model is None                                                     # not even loaded
    np.testing.assert_allclose(b, a[::-1], atol=1e-6)
    # a new pair among cached ones: only that pair is scored
    warm.predict(PREM + ["New premise."], HYP + ["New hypothesis."])
    assert (warm.n_scored, warm.n_forward) == (1, 1)


def test_cache_keyed_by_model(tiny, tmp_path):
    db = tmp_path / "nli.sqlite"
    NLIModel(tiny, cache_path=db).predict(PREM, HYP)
    other = make_tiny_nli_model(tmp_path / "other", id2label={0: "neutral", 1: "CONTRADICTION", 2: "Entailment"}, seed=7)
    s = NLIModel(other, cache_path=db)
    s.predict(PREM, HYP)
    assert s.n_cached == 0 and s.n_scored == 4                                     # other weights: no stale hits


def test_dedup_count(tiny):
    # a pairwise step matrix: 3 steps against the same 3 steps, twice over
    steps = PREM[:3]
    prem = [p for p in steps for _ in steps] * 2
    hyp = [h for _ in steps for h in steps] * 2
    s = NLIModel(tiny, cache=False, batch_size=4)
    P = s.predict(prem, hyp)
    assert P.shape == (18, 3)
    assert (s.n_pairs, s.n_unique, s.n_scored) == (18, 9, 9)
    assert s.n_forward == math.ceil(9 / 4)
    np.testing.assert_allclose(P[:9], P[9:])
    np.testing.assert_allclose(P.sum(1), 1, atol=1e-5)


def test_missing_default_model(monkeypatch, tmp_path):
    monkeypatch.setenv("RI_CACHE_DIR", str(tmp_path))
    with pytest.raises(NLIModelMissing, match="ri models build-nli"):
        NLIModel()
