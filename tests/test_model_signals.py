"""`step_support` (NLI entailment of a step by the premises `nli_contradiction` uses) and `lm_surprise_mean/max` (token
surprisal of a step given the problem and the earlier steps), on scripted models with known answers, a real NLIModel
cache, and the embedded Gemma 3 270M against llama-cpp-python's own `logits_all` path."""
import re, warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from reasoning_integrity.signals.chains import Chain
from reasoning_integrity.models.cache import Cache
from reasoning_integrity.models.llm import LLM, Backend, EndpointError, Result
from reasoning_integrity.models.nli import ScriptedNLI
from reasoning_integrity.signals.registry import SIGNALS, SignalModels, compute_signals
import reasoning_integrity.signals.model as ms


class CountingNLI(ScriptedNLI):
    "A scripted NLI with a cache, like NLIModel's: counts the pairs it had to score (misses) and every call's pairs."
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw); self.cache, self.scored, self.calls = {}, 0, []
    def predict(self, premises, hypotheses, progress=False):
        pairs = list(zip(premises, hypotheses)); self.calls.append(pairs)
        new = [p for p in dict.fromkeys(pairs) if p not in self.cache]
        if new:
            for p, v in zip(new, super().predict([a for a, _ in new], [b for _, b in new])): self.cache[p] = v
        self.scored += len(new)
        return np.array([self.cache[p] for p in pairs]).reshape(-1, 3)


def _chains(n=12, seed=0):
    rng = np.random.default_rng(seed)
    return [Chain(f"t/{i}", [f"step {i}.{j}: " + "w" * int(rng.integers(1, 900)) for j in range(int(rng.integers(1, 7)))],
                  f"question {i} " + "q" * int(rng.integers(0, 900)), first_error=-1, dataset="t") for i in range(n)]


def _rule(p, h):   # deterministic probabilities from the texts
    a = (len(p) * 7 + len(h) * 3) % 10 / 10
    return (a * 0.8, 0.2, (1 - a) * 0.8)


def test_step_support_adds_no_pairs_after_nli_contradiction():
    "Same premises, window and character cut: every pair step_support asks for was scored by nli_contradiction."
    nli = CountingNLI(rule=_rule)
    chains = _chains()
    sc = SignalModels(nli=nli)                      # default window 2, max_chars 600 (the texts above are up to 900 long)
    compute_signals(chains, ["nli_contradiction"], sc)
    scored, asked = nli.scored, {p for c in nli.calls for p in c}
    V, _ = compute_signals(chains, ["step_support"], sc)
    assert nli.scored == scored and scored > 0                 # zero new pairs
    assert set(nli.calls[-1]) == asked                         # exactly the contradiction pairs, in one call
    # the value by hand: max entailment over the premises of each step (the question for step 0)
    s = V[V.level == "step"].set_index(["chain_id", "step"]).value
    for c in chains:
        for i, step in enumerate(c.steps):
            prem = [c.question] if i == 0 else c.steps[max(0, i - 2):i]
            cut = lambda x: x if len(x) <= 600 else x[:600] + "…"
            assert s[(c.id, i)] == pytest.approx(max(_rule(cut(p), cut(step))[0] for p in prem), abs=1e-6)


def test_step_support_registry_entry_and_chain_value():
    s = SIGNALS["step_support"]
    assert (s.level, s.higher, s.reduce, s.needs, s.models) == ("step", "right", "min", (), ("nli",))
    nli = ScriptedNLI({("Q", "a"): (0.6, 0.3, 0.1), ("a", "b"): (0.2, 0.3, 0.5)})
    V, _ = compute_signals([Chain("c", ["a", "b"], "Q", dataset="t")], ["step_support"], SignalModels(nli=nli, nli_window=1))
    assert V.value.tolist() == pytest.approx([0.6, 0.2, 0.2])   # steps, then the chain: its weakest step
    # without a question, step 0 has no premise (NaN) and the others are scored as before
    V, _ = compute_signals([Chain("c", ["a", "b"], "", dataset="t")], ["step_support"], SignalModels(nli=nli, nli_window=1))
    v = V.value.to_numpy()
    assert np.isnan(v[0]) and v[1:].tolist() == pytest.approx([0.2, 0.2])


@pytest.mark.timeout(300)
def test_step_support_real_nli_scorer_scores_nothing_new(tmp_path):
    "With the project's NLIModel (a tiny random model) and its SQLite cache: step_support is all cache hits."
    from reasoning_integrity.models.nli import NLIModel, make_tiny_nli_model
    nli = NLIModel(make_tiny_nli_model(tmp_path / "tiny"), cache_path=tmp_path / "nli.sqlite", precision="fp32")
    sc = SignalModels(nli=nli)
    chains = _chains(6, seed=1)
    C, _ = compute_signals(chains, ["nli_contradiction"], sc)
    before = nli.stats()
    S, _ = compute_signals(chains, ["step_support"], sc)
    after = nli.stats()
    assert after["n_scored"] == before["n_scored"] > 0 and after["n_forward"] == before["n_forward"]
    assert after["n_cached"] - before["n_cached"] == after["n_unique"] - before["n_unique"]
    # the two signals read the same pairs: entailment + contradiction <= 1 step by step where one premise
    single = C[(C.level == "step") & (C.step <= 1)].value.to_numpy() + S[(S.level == "step") & (S.step <= 1)].value.to_numpy()
    assert (single <= 1 + 1e-6).all()


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40),
       st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30), min_size=1, max_size=6))
def test_surprise_prompt_spans_and_word_tokens(question, steps):
    text, spans = ms.surprise_prompt(question, steps)
    assert [text[a:b] for a, b in spans] == steps
    toks = [[m.group(), -1.0, m.start()] for m in re.finditer(r"\s+|\S+", text)]   # whitespace apart from words
    mean, mx, cnt = ms.step_surprisal(toks, text, spans)
    for i, (s, (a, b)) in enumerate(zip(steps, spans)):
        # the tokens of step i: the words in it and the whitespace runs that start inside it
        want = sum(1 for m in re.finditer(r"\s+|\S+", text) if a <= m.start() < b)
        assert cnt[i] == want, (text, i)
        assert (np.isnan(mean[i]) if want == 0 else mean[i] == mx[i] == 1.0)


def test_surprisal_by_hand():
    text, spans = ms.surprise_prompt("2+2?", ["It is 4.", "Done"])
    assert text == "Problem: 2+2?\n\nSolution:\nIt is 4.\nDone"
    toks, pos = [], 0
    for piece, lp in [("Problem", None), (":", -1.0), (" 2+2?", -2.0), ("\n\n", -0.5), ("Solution", -0.1), (":\n", -0.2),
                      ("It", -3.0), (" is", -1.0), (" 4.", -5.0), ("\nDone", -2.5)]:
        toks.append([piece, lp, pos]); pos += len(piece)
    mean, mx, cnt = ms.step_surprisal(toks, text, spans)
    assert cnt.tolist() == [3, 1] and mean.tolist() == pytest.approx([3.0, 2.5]) and mx.tolist() == [5.0, 2.5]


class WordLM(Backend):
    "Scores a prompt one word at a time (logprob −letters/2); counts calls."
    kind = "wordlm"
    def __init__(self): self.calls = 0
    @property
    def identity(self): return {"kind": self.kind, "model": "letters"}
    async def acomplete(self, req):
        self.calls += 1
        assert req.prompt_logprobs and req.max_tokens == 0
        return Result("", "length", prompt_logprobs=[[m.group(), None if i == 0 else -len(m.group().strip()) / 2, m.start()]
                                                     for i, m in enumerate(re.finditer(r"\s*\S+", req.prompt))])


def test_lm_surprise_one_call_per_chain_cached_on_disk(tmp_path):
    chains = _chains(5, seed=2)
    b = WordLM()
    V, cov = compute_signals(chains, ["lm_surprise_mean", "lm_surprise_max"], SignalModels(llm=LLM(b, Cache(tmp_path / "c.sqlite"))))
    assert b.calls == 5 and cov.n_scored.tolist() == [5, 5]
    b2 = WordLM()   # a new run, a fresh memo: every call answered by the disk cache
    V2, _ = compute_signals(chains, ["lm_surprise_mean", "lm_surprise_max"], SignalModels(llm=LLM(b2, Cache(tmp_path / "c.sqlite"))))
    assert b2.calls == 0 and V2.value.tolist() == V.value.tolist()
    # each step: its words "step", "i.j:", "w…" -> surprisals 2, len/2, len/2; the first line break starts step j > 0
    s = V[(V.signal == "lm_surprise_mean") & (V.level == "step")].set_index(["chain_id", "step"]).value
    c = chains[0]
    for j, step in enumerate(c.steps):
        u = [len(w) / 2 for w in step.split()]
        assert s[(c.id, j)] == pytest.approx(np.mean(u))
    assert SIGNALS["lm_surprise_mean"].models == ("llm",) and SIGNALS["lm_surprise_max"].higher == "wrong"


class TextOnly(Backend):
    kind = "textonly"
    @property
    def identity(self): return {"kind": self.kind, "model": "t"}
    async def acomplete(self, req): return Result("text", "stop")


def test_lm_surprise_without_prompt_logprobs_stops_or_counts():
    chains = _chains(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(EndpointError, match="returned no prompt log-probabilities"):
            compute_signals(chains, ["lm_surprise_mean"], SignalModels(llm=LLM(TextOnly())))
        sc = SignalModels(llm=LLM(TextOnly(), fail_fast=0))
        V, _ = compute_signals(chains, ["lm_surprise_mean", "lm_surprise_max"], sc)
    assert V.value.isna().all() and len(sc.memo[("problems", "lm_surprise")]) == 3   # counted once per chain


@pytest.mark.timeout(600)
def test_lm_surprise_gemma_equals_logits_all_reference():
    "The signal on the embedded model equals surprisals computed from llama-cpp-python's own logits_all scores."
    from llama_cpp import Llama
    from reasoning_integrity.models.llm import get_llm
    from reasoning_integrity.models.llamacpp import gemma3_270m_gguf
    ch = Chain("g/1", ["Each box holds 4 apples.", "3 boxes hold 12 apples.", "So there are 15 apples in all."],
               "3 boxes hold 4 apples each. How many apples are there?", dataset="g")
    V, _ = compute_signals([ch], ["lm_surprise_mean", "lm_surprise_max"], SignalModels(llm=get_llm(cache=False)))
    got = V[V.level == "step"].pivot_table(index="step", columns="signal", values="value")
    text, spans = ms.surprise_prompt(ch.question, ch.steps)
    ref = Llama(str(gemma3_270m_gguf()), n_ctx=256, n_batch=64, logits_all=True, verbose=False)
    toks = [ref.token_bos()] + ref.tokenize(text.encode(), add_bos=False, special=False)
    ref.eval(toks)
    L = np.asarray(ref.scores[:len(toks)], dtype=np.float64)
    lp = L - np.log(np.exp(L - L.max(1, keepdims=True)).sum(1, keepdims=True)) - L.max(1, keepdims=True)
    u = [-lp[t - 1, toks[t]] for t in range(1, len(toks))]
    pieces = [ref.detokenize([t]) for t in toks[1:]]
    offs = np.cumsum([0] + [len(p.decode("utf-8", "replace")) for p in pieces[:-1]])
    want = ms.step_surprisal([[p.decode(), -x, int(o)] for p, x, o in zip(pieces, u, offs)], text, spans)
    assert np.allclose(got.lm_surprise_mean.to_numpy(), want[0], atol=2e-3), (got, want)
    assert np.allclose(got.lm_surprise_max.to_numpy(), want[1], atol=2e-3)
