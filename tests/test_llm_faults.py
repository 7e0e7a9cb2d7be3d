"""Fault tolerance of the LLM layer against a local OpenAI-shaped server (loopback only).

The stub server (`reasoning_integrity.models.openai_backend.stub_server`) answers with injected 429s (with
Retry-After), 500s and slow responses at set rates; its answer is a deterministic function of the request, so
resumed and uninterrupted runs must agree exactly.
"""
import json, os, signal, sqlite3, subprocess, sys, textwrap, time
from pathlib import Path

import pytest

from reasoning_integrity.models.llm import Request, RetryPolicy, get_llm
from reasoning_integrity.models.openai_backend import StubApp, stub_server, stub_stats

FIELDS = ("text", "finish_reason", "usage", "cache_key", "error")

def _requests(n):
    "A mix of chat and prompt requests, greedy and sampled (several samples of one request)."
    out = []
    for i in range(n):
        if i % 3 == 0: out.append(Request(messages=[{"role": "user", "content": f"question {i}"}], max_tokens=16))
        elif i % 3 == 1: out.append(Request(prompt=f"prompt {i}", temperature=0.7, sample_index=i % 5))
        else: out.append(Request(prompt=f"prompt {i}", seed=i))
    return out


@pytest.mark.timeout(180)
def test_batch_completes_under_faults(tmp_path):
    "300 requests, 10% 429 + 10% 500 + 3% slow (> timeout): every result present, correct and in order."
    reqs = _requests(300)
    with stub_server(p429=0.10, p500=0.10, pslow=0.03, slow_s=3, retry_after=0.02, seed=7) as url:
        llm = get_llm(f"openai-compatible:{url}#stub", cache=tmp_path / "c.sqlite", concurrency=32, timeout=1.0,
                      retry=RetryPolicy(max_retries=12, base_delay=0.01, max_delay=0.1))
        out = llm.generate(reqs, progress=False)
        stats = stub_stats(url)
    s = llm.last_summary
    assert (s.n, s.ok, s.failed) == (300, 300, 0), s
    assert all(r.ok and r.text for r in out)
    # every answer is the one for its own request (the stub echoes the last message / prompt)
    for q, r in zip(reqs, out):
        want = q.messages[-1]["content"] if q.messages else q.prompt
        assert r.text.startswith(want + " | seed="), (want, r.text)
        assert f"seed={q.effective_seed} " in r.text
    # the faults really happened, and each was retried
    assert stats["429"] > 0 and stats["500"] > 0 and stats["slow"] > 0, stats
    assert s.retries >= stats["429"] + stats["500"] + stats["slow"] - 1
    assert stats["ok"] >= 300
    # all 300 are in the cache: a second run is served from it, identical
    again = get_llm(f"openai-compatible:{url}#stub", cache=tmp_path / "c.sqlite").generate(reqs, progress=False)
    assert all(r.cached for r in again)
    assert [[getattr(r, f) for f in FIELDS] for r in again] == [[getattr(r, f) for f in FIELDS] for r in out]


RUNNER = textwrap.dedent("""
    import json, sys
    sys.path.insert(0, {tests!r})
    from test_llm_faults import _requests
    from reasoning_integrity.models.llm import get_llm, RetryPolicy
    url, cache, out = sys.argv[1:4]
    llm = get_llm(f"openai-compatible:{{url}}#stub", cache=cache, concurrency=4,
                  retry=RetryPolicy(max_retries=12, base_delay=0.01, max_delay=0.1))
    res = llm.generate(_requests(240), progress=False)
    s = llm.last_summary
    json.dump({{"results": [r.to_dict() for r in res], "cached": s.cached, "ok": s.ok}}, open(out, "w"))
""")


def _cache_rows(path):
    if not Path(path).exists(): return 0
    try:
        with sqlite3.connect(path, timeout=5) as db: return db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
    except sqlite3.OperationalError: return 0   # table not created yet


@pytest.mark.timeout(240)
def test_kill_and_resume_matches_uninterrupted(tmp_path):
    "A run SIGKILLed mid-batch and started again ends with results identical to an uninterrupted run."
    script = tmp_path / "run.py"
    script.write_text(RUNNER.format(tests=str(Path(__file__).parent)))
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    run = lambda cache, out: subprocess.Popen([sys.executable, str(script), url, str(cache), str(out)], env=env,
                                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    with stub_server(latency=0.04, p429=0.05, p500=0.05, retry_after=0.02, seed=3) as url:
        # the reference: uninterrupted
        ref = run(tmp_path / "ref.sqlite", tmp_path / "ref.json")
        assert ref.wait(120) == 0, ref.stderr.read().decode()[-2000:]
        # interrupted: kill -9 once a third of the responses is committed
        p = run(tmp_path / "b.sqlite", tmp_path / "b.json")
        deadline = time.time() + 90
        while _cache_rows(tmp_path / "b.sqlite") < 80 and p.poll() is None and time.time() < deadline: time.sleep(0.02)
        assert p.poll() is None, "the run finished before it could be killed"
        p.send_signal(signal.SIGKILL); p.wait(10)
        done = _cache_rows(tmp_path / "b.sqlite")
        assert 80 <= done < 240, done
        assert not (tmp_path / "b.json").exists()
        # resumed
        p = run(tmp_path / "b.sqlite", tmp_path / "b.json")
        assert p.wait(120) == 0, p.stderr.read().decode()[-2000:]
    a, b = json.loads((tmp_path / "ref.json").read_text()), json.loads((tmp_path / "b.json").read_text())
    assert a["ok"] == b["ok"] == 240
    assert b["cached"] >= done           # every response finished before the kill was re-used
    pick = lambda res: [[r[f] for f in FIELDS] for r in res["results"]]
    assert pick(a) == pick(b)


def test_stub_answer_is_deterministic():
    "The property the resume test relies on: the stub's answer depends on the request body only."
    body = {"model": "m", "prompt": "x", "seed": 1, "temperature": 0.0}
    assert StubApp.answer(body) == StubApp.answer(dict(reversed(list(body.items()))))
    assert StubApp.answer(body) != StubApp.answer({**body, "seed": 2})
