"Process reward models of every published kind, on tiny randomly initialised checkpoints built here (no download)."
import json
import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
from reasoning_integrity.models.prm import HFPRM, PRM_KINDS, tiny_prm
from reasoning_integrity.lines.long_cot.section_scorers import HFPRMScorer, pb_prm_table, delta_prm_rows, delta_prm_table
from reasoning_integrity.lines.long_cot.processbench import PBSample

Q, S = "2 + 3 * 4 = ?", ["3 * 4 = 12", "2 + 12 = 14", "so the answer is 14"]


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    return {k: tiny_prm(k, tmp_path_factory.mktemp(k)) for k in PRM_KINDS}


@pytest.mark.parametrize("kind", PRM_KINDS)
def test_kind_comes_from_the_config_and_scores_are_probabilities(folders, kind):
    p = HFPRM.from_pretrained(folders[kind], device="cpu")
    assert (p.kind, p.kind_source) == (kind, "config")
    s = p.score(Q, S)
    assert s.shape == (3,) and ((0 < s) & (s < 1)).all()
    # a different seed is a different model: the scores come from the weights, not from the layout
    other = HFPRM(*tiny_prm(kind, seed=1), kind=kind).score(Q, S)
    assert not np.allclose(s, other)


@pytest.mark.parametrize("kind", ["token_classification", "lm_head", "rlhflow"])
def test_causal_models_score_a_step_from_its_prefix_only(folders, kind):
    "A step's score is read at a position that sees only the steps up to it: later steps cannot change it."
    p = HFPRM.from_pretrained(folders[kind], device="cpu")
    a, b = p.score(Q, S), p.score(Q, S[:2] + ["we get 15"])
    np.testing.assert_allclose(a[:2], b[:2], rtol=1e-5)


def test_sequence_classification_step_is_its_prefix(folders):
    p = HFPRM.from_pretrained(folders["sequence_classification"], device="cpu")
    s = p.score(Q, S)
    for k in range(3): np.testing.assert_allclose(s[k], p.score(Q, S[:k + 1])[-1], rtol=1e-5)


def test_lm_head_is_the_math_shepherd_formula(folders):
    p = HFPRM.from_pretrained(folders["lm_head"], device="cpu")
    text = f"{Q} " + "\n".join(f"{s} ки" for s in S)   # Math-Shepherd: question, space, steps each ending " ки"
    assert p.text(Q, S) == text
    ids = p.tok(text, return_tensors="pt")["input_ids"]
    cand = [p.tok.convert_tokens_to_ids("+"), p.tok.convert_tokens_to_ids("-")]
    with torch.no_grad(): lg = p.model(input_ids=ids).logits[0]
    ref = torch.softmax(lg[:, cand], -1)[:, 0][ids[0] == p.tok.convert_tokens_to_ids("ки")].numpy()
    np.testing.assert_allclose(p.score(Q, S), ref, rtol=1e-5)


def test_contradicting_kind_unknown_architecture_and_random_head_are_refused(folders, tmp_path):
    with pytest.raises(ValueError, match="contradicts"):
        HFPRM.from_pretrained(folders["lm_head"], kind="token_classification")
    with pytest.raises(ValueError, match="contradicts"):
        HFPRM.from_pretrained(folders["token_classification"], kind="sequence_classification")
    assert HFPRM.from_pretrained(folders["lm_head"], kind="lm_head").kind_source == "argument"
    m, tok = tiny_prm("token_classification")
    m.transformer.save_pretrained(tmp_path); tok.save_pretrained(tmp_path)       # the body only, no head
    with pytest.raises(ValueError, match="cannot tell"): HFPRM.from_pretrained(tmp_path)
    cfg = json.loads((tmp_path / "config.json").read_text())
    cfg["architectures"] = ["GPT2ForTokenClassification"]                         # claims a head it does not have
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(ValueError, match="randomly initialised"): HFPRM.from_pretrained(tmp_path)


def test_rlhflow_needs_a_chat_template_and_separator_must_be_one_token():
    m, tok = tiny_prm("lm_head")
    with pytest.raises(ValueError, match="chat template"): HFPRM(m, tok, kind="rlhflow")
    m, tok = tiny_prm("token_classification")
    with pytest.raises(ValueError, match="single token"): HFPRM(m, tok, kind="token_classification", step_sep="<nope>")


@pytest.mark.parametrize("kind", PRM_KINDS)
def test_steps_past_the_context_are_nan_and_counted(kind):
    m, tok = tiny_prm(kind)
    p = HFPRM(m, tok, kind=kind, max_length=30)
    long = [f"step {i} : {i} + 1 = {i + 1}" for i in range(8)]
    s = p.score("count", long)
    assert np.isnan(s[-1]) and not np.isnan(s[0])
    assert p.last_unscored == int(np.isnan(s).sum()) and p.problems[-1].kind == "truncated"
    # never filled: the NaNs reach the evaluation and are counted there
    sc = HFPRMScorer(p)
    rows = delta_prm_rows("t", [sc("count", long)], [type("D", (), dict(id="x", domain="d", n_tokens=lambda self: 1,
                                                                       gold=lambda self, u: {1}))()])
    assert rows.n_nan.iloc[0] == p.last_unscored
    assert delta_prm_table(rows).set_index("domain").loc["all", "unscored"] == p.last_unscored


def test_scorer_adapter_feeds_processbench_eval(folders):
    sc = HFPRMScorer.from_pretrained(folders["token_classification"], name="tiny")
    smp = [PBSample(f"g{i}", "gsm8k", "", "1 + 2", S[: i + 1], -1 if i == 0 else 1) for i in range(3)]
    scores = sc.score_many([(s.problem, s.steps) for s in smp])
    tab, t = pb_prm_table("tiny", scores, smp)
    assert set(tab.threshold_rule) == {"zscore", "best_f1_gsm8k"} and np.isfinite(t)
    assert "average" in set(tab.subset)
    assert sc.describe()["kind"] == "token_classification" and sc.name == "tiny"
