"The Hugging Face PRM scorer on a tiny randomly initialised model built here (no download)."
import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
from reasoning_integrity.protocols.section_scorers import HFPRMScorer, pb_prm_table
from reasoning_integrity.datasets.processbench import PBSample


def tiny(lm_head=False, seed=0):
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast, GPT2Config, GPT2ForTokenClassification, GPT2LMHeadModel
    words = "[UNK] [PAD] <extra_0> the answer is 1 2 3 4 5 + = so and we get".split()
    t = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    t.pre_tokenizer = pre_tokenizers.Whitespace()
    tok = PreTrainedTokenizerFast(tokenizer_object=t, unk_token="[UNK]", pad_token="[PAD]",
                                  additional_special_tokens=["<extra_0>"])
    torch.manual_seed(seed)
    cfg = GPT2Config(vocab_size=len(words), n_positions=64, n_embd=16, n_layer=1, n_head=2, num_labels=2)
    return (GPT2LMHeadModel(cfg) if lm_head else GPT2ForTokenClassification(cfg)), tok


def test_reward_at_each_separator():
    m, tok = tiny()
    prm = HFPRMScorer(m, tok, max_length=64)
    steps = ["1 + 2 = 3", "so the answer is 3", "we get 4"]
    s = prm("1 + 2 = 3", steps)
    assert s.shape == (3,) and ((0 < s) & (s < 1)).all()
    enc = tok(prm.text("1 + 2 = 3", steps), return_tensors="pt")
    pos = (enc["input_ids"][0] == prm.sep_id).nonzero().flatten()
    assert len(pos) == 3
    with torch.no_grad(): p = torch.softmax(m(**enc).logits[0, pos], -1)[:, 1].numpy()
    np.testing.assert_allclose(s, p, rtol=1e-5)


def test_truncation_is_counted():
    m, tok = tiny()
    prm = HFPRMScorer(m, tok, max_length=8)
    s = prm("1 + 2 = 3", ["1 + 2", "so the answer is 3", "we get 4"])
    assert np.isnan(s[-1]) and [p.kind for p in prm.problems] == ["truncated"]


def test_bad_separator_and_lm_head():
    m, tok = tiny()
    with pytest.raises(ValueError, match="not a single token"): HFPRMScorer(m, tok, step_sep="<nope>")
    mlm, _ = tiny(lm_head=True)
    s = HFPRMScorer(mlm, tok, good_token="+", bad_token="=")("q", ["1 + 2", "we get 3"])
    assert s.shape == (2,) and ((0 < s) & (s < 1)).all()


def test_prm_scores_feed_processbench_eval():
    m, tok = tiny()
    prm = HFPRMScorer(m, tok)
    smp = [PBSample(f"g{i}", "gsm8k", "", "1 + 2", ["1 + 2 = 3", "so the answer is 3", "we get 4"][: i + 1], -1 if i == 0 else 1)
           for i in range(3)]
    scores = prm.score_many([(s.problem, s.steps) for s in smp])
    tab, t = pb_prm_table("tiny", scores, smp)
    assert set(tab.threshold_rule) == {"zscore", "best_f1_gsm8k"} and np.isfinite(t)
    assert ((0 <= tab.f1) & (tab.f1 <= 1)).all()


def test_from_pretrained_roundtrip(tmp_path):
    m, tok = tiny()
    m.save_pretrained(tmp_path); tok.save_pretrained(tmp_path)
    steps = ["1 + 2 = 3", "so the answer is 3"]
    a = HFPRMScorer(m, tok)("1 + 2", steps)
    b = HFPRMScorer.from_pretrained(str(tmp_path))("1 + 2", steps)
    np.testing.assert_allclose(a, b, rtol=1e-5)
