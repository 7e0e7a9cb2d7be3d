"""Integration tests with real parts: llama.cpp's OpenAI-compatible HTTP server and the embedded model.

- `python -m llama_cpp.server` serves Gemma 3 270M on 127.0.0.1 (a free port); a batch through the
  openai-compatible backend is cached, and a second run is served from the cache with identical results.
- The embedded model's schema-constrained path yields parseable belief states for every one of 20 prompts.
"""
import secrets
import json, subprocess, sys

import pytest

pytestmark = pytest.mark.integration   # a live llama.cpp server: make test-integration

from reasoning_integrity.lines.trajectory.types import BELIEF_STATE_SCHEMA, parse_trajectory
from reasoning_integrity.models.llamacpp import bounded_schema, gemma3_270m_gguf
from reasoning_integrity.models.llm import Request, get_llm
from llama_server import llama_server as start_server

SECRET = "sk-" + secrets.token_hex(16)  # a fresh fake key per run; the tests check it never leaks


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory):
    with start_server(tmp_path_factory.mktemp("server"), "--n_ctx", "512", "--api_key", SECRET,
                      headers={"Authorization": f"Bearer {SECRET}"}) as url:
        yield url


@pytest.mark.timeout(300)
def test_server_batch_then_cache(llama_server, tmp_path):
    fewshot = "Q: What is 2 + 3?\nA: 5\nQ: What is 4 + 4?\nA: 8\nQ: What is {} + {}?\nA:"
    reqs = [Request(prompt=fewshot.format(a, b), max_tokens=4, stop=["\n"]) for a, b in [(1, 6), (3, 3)]]
    reqs += [Request(messages=[{"role": "user", "content": "Name a colour."}], max_tokens=6),
             Request(prompt="Once upon a time", max_tokens=6, temperature=0.8, seed=1)]
    spec, cache = f"openai-compatible:{llama_server}#gemma3-270m", tmp_path / "cache.sqlite"
    llm = get_llm(spec, cache=cache, concurrency=2, api_key=SECRET)
    first = llm.generate(reqs, progress=False)
    assert llm.last_summary.ok == 4 and llm.last_summary.cached == 0, [r.error for r in first]
    assert all(r.usage.get("completion_tokens", 0) >= 1 for r in first)
    again_llm = get_llm(spec, cache=cache, api_key="a-different-key")   # the key is not part of the cache key
    again = again_llm.generate(reqs, progress=False)
    assert again_llm.last_summary.cached == 4
    assert [(r.text, r.cache_key, r.finish_reason) for r in again] == [(r.text, r.cache_key, r.finish_reason) for r in first]
    # the key reached the server (it requires it) but is nowhere in the cache file, the identity or the repr
    assert SECRET.encode() not in cache.read_bytes()
    assert SECRET not in repr(llm) + repr(llm.backend) + json.dumps(llm.identity)


@pytest.fixture(scope="module")
def gemma():
    "One embedded Gemma 3 270M for the tests below (llama.cpp loads it on first use; no cache: every call runs)."
    return get_llm(cache=False)


@pytest.mark.timeout(600)
def test_embedded_schema_constrained_20_prompts(gemma):
    questions = [f"Is {n} a prime number?" for n in (7, 9, 15, 17, 21, 29, 33, 37, 49, 51)]
    questions += [f"Which is larger, {a} or {b}?" for a, b in [("2/3", "3/5"), ("0.3", "1/4"), ("7%", "0.07"),
                  ("2^5", "5^2"), ("-3", "-7"), ("1/8", "0.2"), ("sqrt 50", "7"), ("3!", "2^3"), ("0.99", "1"), ("pi", "22/7")]]
    # Arrays of at most 2, strings of at most 12 characters, confidences on a 0.05 grid: the JSON closes in ~36
    # tokens (at most ~85 even if every string is full, one token per character: within max_tokens). The cost is
    # the grammar: llama.cpp checks Gemma's whole 262,144-token vocabulary against it at every step, ~5x the
    # unconstrained cost per token, so the test's CPU is ~20 x 36 constrained tokens, whatever max_tokens says.
    schema = bounded_schema(BELIEF_STATE_SCHEMA, max_items=2, max_length=12, number_step=0.05)
    shot = ('Question: Is 4 even?\nBelief state: {"hypotheses": ["yes", "no"], "confidence": [0.9, 0.1], '
            '"constraints": ["4=2*2"]}\n')
    reqs = [Request(prompt=f"{shot}Question: {q}\nBelief state: ", json_schema=schema, max_tokens=96) for q in questions]
    out = gemma.generate(reqs, progress=False)
    assert gemma.last_summary.ok == 20, gemma.last_summary
    for r in out:
        obj = json.loads(r.text)                     # valid JSON: the grammar closed it within max_tokens
        assert set(obj) == {"hypotheses", "confidence", "constraints"}
        traj, problems = parse_trajectory(r.text)
        assert len(traj.states) == 1, (r.text, problems)
        assert traj.states[0].hypotheses and abs(sum(traj.states[0].confidence) - 1) < 1e-6


@pytest.mark.timeout(300)
def test_embedded_logprobs_and_smollm2(gemma):
    r = gemma("The capital of France is", max_tokens=2, top_logprobs=3)
    assert r.ok and len(r.top_logprobs) == r.usage["completion_tokens"] >= 1
    assert all(len(d) == 3 and max(d.values()) <= 0 for d in r.top_logprobs)
    smol = get_llm("llamacpp:smollm2-135m", cache=False)
    r = smol([{"role": "user", "content": "Name one primary colour."}], max_tokens=8)
    assert r.ok and r.text.strip() and r.backend == "llamacpp:smollm2-135m"


@pytest.mark.timeout(300)
def test_embedded_top_logprobs_match_logits_all(gemma):
    """Prompt requests with `top_logprobs` run on the main instance (last-row logits, no `logits_all`): the same
    text and {token: logprob} as llama-cpp-python's `logits_all` path, with a JSON-schema grammar too, and prompts
    longer than the old 1024-token `logits_all` context now fit."""
    from llama_cpp import Llama, LlamaGrammar
    from reasoning_integrity.models.llamacpp import _completion_logprobs
    ref = Llama(str(gemma3_270m_gguf()), n_ctx=256, logits_all=True, verbose=False)
    schema = {"type": "object", "properties": {"answer": {"enum": ["Yes", "No"]}}, "required": ["answer"]}
    prompt = 'Is 7 a prime number? Reply as JSON {"answer": "Yes"} or {"answer": "No"}.\n'
    # the backend evaluates every request from an empty KV cache (`fresh_context`), as the new `ref` does
    r = gemma(prompt, max_tokens=8, top_logprobs=4, json_schema=schema)
    o = ref.create_completion(prompt=prompt, logprobs=4, temperature=0.0, top_p=1.0, max_tokens=8, seed=0,
                              grammar=LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False))["choices"][0]
    want = _completion_logprobs(o["logprobs"])
    assert r.ok and r.text == o["text"] and json.loads(r.text)["answer"] in ("Yes", "No")
    assert [list(d) for d in r.top_logprobs] == [list(d) for d in want]
    assert max(abs(a[t] - b[t]) for a, b in zip(r.top_logprobs, want) for t in a) < 1e-3
    long = "Step: add one to the running total and write it down. " * 110 + "Correct?"
    r = gemma(long, max_tokens=1, top_logprobs=5)
    assert r.ok and r.usage["prompt_tokens"] > 1024 and len(r.top_logprobs) == 1 and len(r.top_logprobs[0]) >= 5
