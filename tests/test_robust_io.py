"""Hostile input and broken infrastructure at the LLM layer's boundaries (issue 14): a damaged cache file, a dead
endpoint, 200 responses that are cut short or empty, a lone surrogate in a model's answer, a fuzzed replay file,
credentials in a base URL. Every failure is one clear error naming the file or URL (or a counted miss / problem),
never a traceback from deep inside, never a run that "succeeds" with nothing but failed calls.

The HTTP server here is a real one (`http.server` on a loopback port, in a thread) whose faults follow a fixed
schedule, so every run sees the same faults.
"""
import asyncio, contextlib, io, json, os, random, sqlite3, subprocess, sys, threading, time, warnings
from contextlib import redirect_stderr, redirect_stdout
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from reasoning_integrity.run.cli import main as ri
from reasoning_integrity.models.cache import Cache, CacheError, canonical_json
from reasoning_integrity.models.llm import (LLM, Backend, EndpointError, Request, Result, RetryPolicy, ReplayBackend,
                                            get_llm)
from reasoning_integrity.models.openai_backend import free_port

FAST = RetryPolicy(max_retries=8, base_delay=0.001, max_delay=0.01)


def run_cli(*argv):
    "`ri ARGV` in-process: (exit status, stdout, stderr)."
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rc = ri(list(argv))
    return rc, out.getvalue(), err.getvalue()


# ---------------------------------------------------------------------------------------------------------------
# A damaged cache, eight ways

class Echo(Backend):
    "Answers 'echo:<prompt>'; calls `hook(n)` before its n-th call (n from 1)."
    kind = "echo"
    def __init__(self, hook=None): self.calls, self.hook = 0, hook
    @property
    def identity(self): return {"kind": self.kind, "model": "e"}
    async def acomplete(self, req):
        self.calls += 1
        if self.hook: self.hook(self.calls)
        return Result(f"echo:{req.prompt}", "stop")


def reqs(n=60): return [Request(prompt=f"q{i}") for i in range(n)]


def filled(path, n=60):
    "A cache file holding the answers of `reqs(n)`, closed (no -wal/-shm left)."
    c = Cache(path)
    LLM(Echo(), c).generate(reqs(n), progress=False)
    c.close()
    return path


def assert_clear(err, path):
    "One error naming the file and the fix, not SQLite's bare words."
    msg = str(err)
    assert str(path) in msg and f"ri cache clear --path {path}" in msg, msg


def assert_refused(err, path):
    "A file that is not identifiably a cache of this project: named, left unchanged, and no fix that deletes it (issue 26)."
    msg = str(err)
    assert str(path) in msg and "nothing was changed" in msg and "ri cache clear" not in msg, msg


def cli_refuses(path):
    "`ri cache info` names the file and what it is (exit 1); `ri cache clear` refuses it (exit 2); not a byte changes."
    before = path.read_bytes()
    rc, out, err = run_cli("cache", "info", "--path", str(path))
    assert rc == 1 and str(path) in err and "nothing was changed" in err and "Traceback" not in out + err, (rc, out, err)
    rc, out, err = run_cli("cache", "clear", "--path", str(path))
    assert rc == 2 and "nothing was changed" in err and "Traceback" not in out + err, (rc, out, err)
    assert path.read_bytes() == before and [p.name for p in path.parent.iterdir()] == [path.name]


def cli_repairs(path):
    "`ri cache info` reports the damage without a traceback; `ri cache clear` deletes the file, and the cache works again."
    rc, out, err = run_cli("cache", "info", "--path", str(path))
    assert rc == 1 and str(path) in err and "ri cache clear --path" in err and "Traceback" not in out + err, (rc, out, err)
    rc, out, err = run_cli("cache", "clear", "--path", str(path))
    # a truncated file's schema cannot be read: it is deleted, and no empty cache of a guessed kind is put in its place
    assert rc == 0 and f"{path} is a damaged cache" in err and "deleted it" in err, (rc, out, err)
    rc, out, err = run_cli("cache", "info", "--path", str(path))
    assert rc == 0 and "(none)" in out, (rc, out, err)
    llm = LLM(Echo(), Cache(path))
    assert all(r.ok for r in llm.generate(reqs(5), progress=False))


@pytest.mark.parametrize("kind", ["truncated", "zeroed", "random", "not_sqlite", "wrong_schema"])
def test_damaged_cache_file_is_named_with_its_fix(tmp_path, kind):
    path = tmp_path / "c.sqlite"
    if kind == "truncated":
        filled(path, 3000)
        with open(path, "r+b") as f: f.truncate(path.stat().st_size // 2)
    elif kind == "zeroed": path.write_bytes(b"\0" * (filled(path).stat().st_size))
    elif kind == "random": path.write_bytes(random.Random(0).randbytes(64 * 1024))
    elif kind == "not_sqlite": path.write_text("\n".join(json.dumps({"prompt": f"q{i}", "text": "a"}) for i in range(100)))
    else:
        db = sqlite3.connect(path); db.execute("CREATE TABLE responses (key TEXT, value BLOB)"); db.commit(); db.close()
    with pytest.raises(CacheError) as e:
        LLM(Echo(), Cache(path)).generate(reqs(3000 if kind == "truncated" else 10), progress=False)
    if kind == "truncated":   # a cache of this project (its mark is in the header): `ri cache clear` deletes it
        assert_clear(e.value, path)
        cli_repairs(path)
    else:                     # not identifiably ours: refused and never deleted (changed deliberately, issue 26)
        assert_refused(e.value, path)
        cli_refuses(path)


def test_bad_rows_are_counted_misses(tmp_path):
    "2 % of the rows unreadable (not JSON, a JSON list, a number, invalid UTF-8, a text that is not a string): misses."
    path = filled(tmp_path / "c.sqlite", 100)
    db = sqlite3.connect(path)
    keys = [k for (k,) in db.execute("SELECT key FROM responses ORDER BY key")]
    db.execute("UPDATE responses SET result = '{oops' WHERE key = ?", (keys[3],))
    db.execute("UPDATE responses SET result = ? WHERE key = ?", (json.dumps({"text": 5, "finish_reason": "stop"}), keys[50]))
    db.commit(); db.close()
    backend = Echo()
    llm = LLM(backend, Cache(path))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = llm.generate(reqs(100), progress=False)
    s = llm.last_summary
    assert (s.ok, s.cached, s.cache_bad, backend.calls) == (100, 98, 2, 2), s
    assert [r.text for r in out] == [f"echo:q{i}" for i in range(100)]
    assert llm.cache.bad_rows == 2 and any("could not be read" in str(x.message) for x in w)
    # the two rows were written again: a third run is served entirely from the cache
    again = LLM(Echo(), Cache(path)); again.generate(reqs(100), progress=False)
    assert again.last_summary.cached == 100 and again.last_summary.cache_bad == 0
    # the other kinds of unreadable row, straight into SQLite (invalid UTF-8 too): misses, counted, never a crash
    db = sqlite3.connect(path)
    for k, v in zip(keys[10:14], ["[1, 2]", 7, b"\xff\xfe\x00{", "\"text\""]):
        db.execute("UPDATE responses SET result = ? WHERE key = ?", (v, k))
    db.execute("UPDATE responses SET result = CAST(x'7b2274657874223a2022ff227d' AS TEXT) WHERE key = ?", (keys[20],))
    db.commit(); db.close()
    third = LLM(Echo(), Cache(path))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        third.generate(reqs(100), progress=False)
    assert third.last_summary.cache_bad == 5 and third.last_summary.ok == 100, third.last_summary
    rc, out, err = run_cli("cache", "info", "--path", str(path))
    assert rc == 0 and "unreadable" in out, (out, err)


def test_cache_deleted_mid_run_is_reported(tmp_path):
    path = filled(tmp_path / "c.sqlite", 5)
    def delete(n):
        if n == 10:
            for f in tmp_path.glob("c.sqlite*"): f.unlink()
    llm = LLM(Echo(delete), Cache(path), concurrency=1)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = llm.generate(reqs(30), progress=False)
    assert all(r.ok for r in out) and [r.text for r in out] == [f"echo:q{i}" for i in range(30)]
    gone = [str(x.message) for x in w if "disappeared" in str(x.message)]
    assert len(gone) == 1 and str(path) in gone[0], [str(x.message) for x in w]
    assert llm.cache.problems and str(path) in llm.cache.problems[0]
    # the responses after the deletion went into a new file at the same place
    assert path.exists() and len(Cache(path)) >= 30 - 5 - 10
    rc, out, err = run_cli("cache", "info", "--path", str(path))
    assert rc == 0 and "echo:e" in out


def _make_read_only(path):
    "A file that cannot be written, even by root (chattr +i), else by mode 0444; returns the undo, or skips."
    if os.geteuid() == 0:
        if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode != 0:
            pytest.skip("running as root without chattr +i: cannot make a read-only file")
        return lambda: subprocess.run(["chattr", "-i", str(path)], capture_output=True)
    path.chmod(0o444)
    return lambda: path.chmod(0o644)


def test_read_only_cache_is_read_and_reported(tmp_path):
    path = filled(tmp_path / "c.sqlite", 20)
    undo = _make_read_only(path)
    try:
        llm = LLM(Echo(), Cache(path))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            out = llm.generate(reqs(40), progress=False)
        assert all(r.ok for r in out) and llm.last_summary.cached == 20
        ro = [str(x.message) for x in w if "read-only" in str(x.message)]
        assert len(ro) == 1 and str(path) in ro[0] and "chmod u+w" in ro[0], [str(x.message) for x in w]
        assert llm.cache.unsaved == 20
        rc, out_, err = run_cli("cache", "info", "--path", str(path))
        assert rc == 0 and "echo:e" in out_, (out_, err)
        rc, out_, err = run_cli("cache", "clear", "--path", str(path))
        assert rc == 2 and "read-only" in err and str(path) in err and "Traceback" not in err, (rc, err)
    finally: undo()


# ---------------------------------------------------------------------------------------------------------------
# A real HTTP server with scheduled faults

class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *a): pass

    def _send(self, status, raw):
        self.send_response(status)
        self.send_header("content-type", "application/json"); self.send_header("content-length", str(len(raw)))
        self.end_headers(); self.wfile.write(raw)

    def do_GET(self):
        self.server.seen.append(self.path)
        if self.path.split("?")[0] == "/v1/models": self._send(200, b'{"object": "list", "data": [{"id": "m", "object": "model"}]}')
        else: self._send(404, b'{"error": {"message": "no such route"}}')

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        chat = "messages" in body
        asked = body["messages"][-1]["content"] if chat else body["prompt"]
        srv = self.server
        with srv.lock:
            attempt = srv.attempts.get(asked, 0); srv.attempts[asked] = attempt + 1; srv.seen.append(self.path)
            mode = srv.schedule(asked, attempt)
            srv.modes[mode] = srv.modes.get(mode, 0) + 1
        text = f"echo {asked}" + srv.suffix
        choice = ({"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}} if chat
                  else {"index": 0, "finish_reason": "stop", "text": text})
        obj = {"id": "x", "object": "chat.completion" if chat else "text_completion", "created": 0, "model": "m",
               "choices": [] if mode == "empty" else [choice], "usage": {"prompt_tokens": 1, "completion_tokens": 2}}
        raw = json.dumps(obj).encode()   # ensure_ascii: a lone surrogate goes out as the escape \ud83d
        self._send(200, raw[:len(raw) // 2] if mode == "trunc" else raw)


@contextlib.contextmanager
def http_server(schedule=lambda asked, attempt: "ok", suffix=""):
    "A loopback OpenAI-shaped server; `schedule(prompt, attempt)`: 'ok', 'trunc' (a 200 cut in half) or 'empty' (no choices)."
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    srv.schedule, srv.suffix, srv.attempts, srv.lock, srv.modes, srv.seen = schedule, suffix, {}, threading.Lock(), {}, []
    t = threading.Thread(target=srv.serve_forever, daemon=True); t.start()
    try: yield f"http://127.0.0.1:{srv.server_address[1]}/v1", srv
    finally: srv.shutdown(); srv.server_close()


def faulty(asked, attempt):
    "Per prompt pN: N % 3 == 0 is cut short, then empty, then answered; N % 3 == 1 is empty once; the rest answer at once."
    n = int(asked[1:])
    plan = ("trunc", "empty") if n % 3 == 0 else ("empty",) if n % 3 == 1 else ()
    return plan[attempt] if attempt < len(plan) else "ok"


@pytest.mark.timeout(120)
@pytest.mark.parametrize("http", ["aiohttp", "httpx"])
def test_truncated_and_empty_200s_are_retried(tmp_path, http):
    with http_server(faulty) as (url, srv):
        llm = get_llm(f"openai-compatible:{url}#m", cache=tmp_path / "c.sqlite", http=http, retry=FAST, concurrency=4)
        batch = [Request(prompt=f"p{i}") if i % 2 else Request(messages=[{"role": "user", "content": f"p{i}"}])
                 for i in range(40)]
        out = llm.generate(batch, progress=False)
    s = llm.last_summary
    assert (s.ok, s.failed) == (40, 0), (s, [r.error for r in out if r.error][:3])
    assert [r.text for r in out] == [f"echo p{i}" for i in range(40)]
    assert (srv.modes["trunc"], srv.modes["empty"]) == (14, 27), srv.modes   # p0, p3, ..., p39: 14 of them
    assert s.retries == srv.modes["trunc"] + srv.modes["empty"]


@pytest.mark.timeout(120)
def test_failed_200s_name_the_problem(tmp_path):
    "Always empty: the error says so (no bare IndexError), and the first batch stopping names the endpoint."
    with http_server(lambda asked, attempt: "empty") as (url, srv):
        llm = get_llm(f"openai-compatible:{url}#m", cache=False, retry=RetryPolicy(max_retries=1, base_delay=0.001))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(EndpointError) as e: llm.generate([Request(prompt="a"), Request(prompt="b")], progress=False)
    assert f"HTTP 200 with no choices at {url}/completions" in str(e.value) and url in str(e.value), str(e.value)


@pytest.mark.timeout(120)
def test_lone_surrogate_in_an_answer(tmp_path):
    "A JSON escape \\ud83d in every answer: the batch completes, the answer fed into the next request works, the cache is clean UTF-8."
    with http_server(suffix=" half an emoji \ud83d") as (url, srv):
        cache = tmp_path / "c.sqlite"
        llm = get_llm(f"openai-compatible:{url}#m", cache=cache, retry=FAST)
        first = llm.generate([Request(prompt=f"q{i}") for i in range(30)], progress=False)
        # the next step of a protocol: the model's answer becomes part of the next prompt
        second = llm.generate([Request(messages=[{"role": "user", "content": r.text + " go on"}]) for r in first], progress=False)
        again = get_llm(f"openai-compatible:{url}#m", cache=cache).generate([Request(prompt=f"q{i}") for i in range(30)],
                                                                          progress=False)
    assert all(r.ok for r in first + second), [r.error for r in first + second if r.error][:3]
    assert all(r.text.endswith(" half an emoji \ufffd") for r in first + second)
    for r in first + second: r.text.encode("utf-8")   # encodes: no surrogate left
    assert [r.text for r in again] == [r.text for r in first] and all(r.cached for r in again)
    db = sqlite3.connect(cache)
    for (v,) in db.execute("SELECT CAST(result AS BLOB) FROM responses"):
        assert "\ufffd" in json.loads(bytes(v).decode("utf-8"))["text"]   # valid UTF-8, U+FFFD in place
    # a top-logprob token with a lone surrogate, from any backend, is cleaned the same way
    class Half(Echo):
        async def acomplete(self, req): return Result("x\ud83d", "stop", top_logprobs=[{"\ud83d": -0.5}])
    (r,) = LLM(Half(), Cache(tmp_path / "h.sqlite")).generate([Request(prompt="\ud83d")], progress=False)
    assert (r.text, r.top_logprobs) == ("x\ufffd", [{"\ufffd": -0.5}])


# ---------------------------------------------------------------------------------------------------------------
# A dead endpoint

@pytest.mark.timeout(60)
@pytest.mark.parametrize("http", ["aiohttp", "httpx"])
def test_dead_endpoint_fails_fast_and_names_it(tmp_path, http):
    url = f"http://127.0.0.1:{free_port()}/v1"   # nothing listens there
    llm = get_llm(f"openai-compatible:{url}#m", cache=tmp_path / "c.sqlite", http=http)   # default retries and timeout
    t0 = time.perf_counter()
    with pytest.raises(EndpointError) as e: llm.generate(reqs(20), progress=False)
    dt = time.perf_counter() - t0
    assert dt < 15, dt
    msg = str(e.value)
    assert f"connection refused at {url}" in msg and "imeout" not in msg, msg
    # without the pre-flight check: every call fails (each named "refused"), and the first batch stops the run
    nocheck = get_llm(f"openai-compatible:{url}#m", cache=False, http=http, preflight=None,
                      retry=RetryPolicy(max_retries=2, base_delay=0.01))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(EndpointError) as e: nocheck.generate(reqs(5), progress=False)
    assert f"connection refused at {url}/completions" in str(e.value) and "imeout" not in str(e.value), str(e.value)
    assert nocheck.last_summary.failed == 5


@pytest.mark.timeout(120)
def test_dead_endpoint_makes_the_process_fail(tmp_path):
    "A script that generates against a closed port exits non-zero, within seconds, naming the URL; RI_FAIL_FAST=0 does not stop a run whose calls fail."
    url = f"http://127.0.0.1:{free_port()}/v1"
    script = ("import sys; from reasoning_integrity.models.llm import get_llm, Request, RetryPolicy\n"
              "check = sys.argv[2] == 'check'\n"
              "llm = get_llm(sys.argv[1], cache=False, preflight=5.0 if check else None,\n"
              "              retry=None if check else RetryPolicy(max_retries=0))\n"
              "res = llm.generate([Request(prompt='x')] * 3, progress=False)\n"
              "print('accuracy', sum(r.ok for r in res) / len(res))\n")
    run = lambda mode, env: subprocess.run([sys.executable, "-c", script, f"openai-compatible:{url}#m", mode],
                                           capture_output=True, text=True, timeout=60, env=env)
    t0 = time.perf_counter()
    p = run("check", dict(os.environ))
    assert p.returncode != 0 and time.perf_counter() - t0 < 15
    assert "EndpointError" in p.stderr and f"connection refused at {url}" in p.stderr and "accuracy" not in p.stdout
    # the first batch failing stops the script too (no pre-flight check here)
    p = run("nocheck", dict(os.environ))
    assert p.returncode != 0 and "EndpointError" in p.stderr and "RI_FAIL_FAST=0" in p.stderr, p.stderr[-2000:]
    # RI_FAIL_FAST=0: the failures are counted and the script goes on
    p = run("nocheck", {**os.environ, "RI_FAIL_FAST": "0"})
    assert p.returncode == 0 and "accuracy 0.0" in p.stdout, p.stderr[-2000:]


# ---------------------------------------------------------------------------------------------------------------
# A hostile replay file

def _hostile_line(rng, good):
    "One line of a fuzzed recording: a real line mutated, or something built to break a parser."
    kind = rng.randrange(10)
    if kind == 0: return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))            # random bytes
    if kind == 1:                                                                                   # invalid UTF-8 inside
        i = rng.randrange(len(good)); return good[:i] + bytes([rng.choice([0x80, 0xc3, 0xed, 0xff, 0xfe])]) + good[i:]
    if kind == 2: d = rng.randrange(1, 200_000); return b"[" * d + b"]" * d                         # deep nesting
    if kind == 3: d = rng.randrange(1, 50_000); return b'{"request": ' * d + b"1" + b"}" * d
    if kind == 4: i = rng.randrange(len(good)); return good[:i] + b"\x00" + good[i:]                 # NUL
    if kind == 5: return good.replace(b'"text": "', b'"text": "\\ud83d\\udc00\\ud800 ')              # surrogates
    if kind == 6: return json.dumps({"request": {"prompt": "p"}, "text": rng.choice([5, None, [], {}]),
                                     "top_logprobs": rng.choice([5, [1], [{"a": "b"}]])}).encode()  # wrong types
    if kind == 7: return good[:rng.randrange(len(good))]                                            # cut short
    if kind == 8: return json.dumps({"key": [1], "text": "k"}).encode()
    return good


@pytest.mark.timeout(300)
def test_fuzzed_replay_files_never_crash(tmp_path):
    rng = random.Random(14)
    goods = [json.dumps({"request": {"prompt": f"p{i}"}, "text": f"answer {i}", "usage": {"completion_tokens": 2}}).encode()
             for i in range(20)]
    requests = [Request(prompt=f"p{i}") for i in range(20)]
    crashed = []
    for n in range(300):
        f = tmp_path / f"r{n}.jsonl"
        f.write_bytes(b"\n".join(_hostile_line(rng, rng.choice(goods)) for _ in range(rng.randrange(1, 12))))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                b = ReplayBackend(f)
                out = LLM(b, fail_fast=0).generate(requests, progress=False)
            for r in out: (r.text + (r.error or "")).encode("utf-8")
            canonical_json([r.to_dict() for r in out]).encode("utf-8")
            assert all(isinstance(p, tuple) and isinstance(p[0], int) for p in b.problems)
        except Exception as e:   # noqa: BLE001 - collect every crash, report them together
            crashed.append((n, f"{type(e).__name__}: {str(e)[:100]}"))
    assert not crashed, crashed[:5]
    # a bad line is counted with its number, the good ones are served
    f = tmp_path / "mixed.jsonl"
    f.write_bytes(goods[0] + b"\n" + b"\xff\xfe\n" + b"[" * 100_000 + b"\n" + goods[1].replace(b"answer", b"\x00") + b"\n" + goods[2])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        b = ReplayBackend(f)
    assert [i for i, _ in b.problems] == [2, 3, 4] and any(str(f) in str(x.message) for x in w)
    assert [r.text for r in LLM(b, fail_fast=0).generate([requests[0], requests[2]], progress=False)] == ["answer 0", "answer 2"]
    # a file that cannot be read at all: one error naming it
    with pytest.raises(OSError, match=f"cannot read the replay file {tmp_path / 'nope.jsonl'}"): ReplayBackend(tmp_path / "nope.jsonl")


# ---------------------------------------------------------------------------------------------------------------
# Credentials in a base URL

SECRET = "sk-robust-" + "7" * 24


def _everything_shown(llm):
    b = llm.backend
    return " ".join([repr(llm), repr(b), b.label, b.endpoint, llm.spec, json.dumps(llm.identity), json.dumps(llm.describe()),
                     canonical_json({"backend": llm.identity}), repr(vars(b)), repr(vars(llm))])


@pytest.mark.timeout(120)
def test_credentials_in_a_url_never_show(tmp_path, monkeypatch):
    # user:key@ is refused, with the URL masked
    with pytest.raises(ValueError) as e: get_llm(f"openai-compatible:http://me:{SECRET}@127.0.0.1:9/v1#m", cache=False)
    assert SECRET not in str(e.value) and "http://***@127.0.0.1:9/v1" in str(e.value) and "OPENAI_API_KEY" in str(e.value)
    monkeypatch.setenv("OPENAI_BASE_URL", f"https://me:{SECRET}@example.invalid/v1")
    with pytest.raises(ValueError) as e: get_llm("openai:gpt-4o-mini", cache=False)
    assert SECRET not in str(e.value)
    monkeypatch.delenv("OPENAI_BASE_URL")
    # ?api_key=... reaches the server as a query parameter, and nothing else
    with http_server() as (url, srv):
        cache = tmp_path / "c.sqlite"
        llm = get_llm(f"openai-compatible:{url}?api_key={SECRET}#m", cache=cache)
        (r,) = llm.generate([Request(prompt="hi")], progress=False)
        assert r.ok and r.text == "echo hi", r.error
        assert any(f"api_key={SECRET}" in p for p in srv.seen), srv.seen     # moved to the client, still sent
        shown = _everything_shown(llm) + r.cache_key + r.backend + json.dumps(r.to_dict())
        assert SECRET not in shown, shown
        assert SECRET.encode() not in b"".join(p.read_bytes() for p in tmp_path.glob("c.sqlite*"))
    # and not in the error of a dead endpoint
    dead = get_llm(f"openai-compatible:http://127.0.0.1:{free_port()}/v1?token={SECRET}#m", cache=False)
    with pytest.raises(EndpointError) as e: dead.generate([Request(prompt="x")], progress=False)
    assert SECRET not in str(e.value) + _everything_shown(dead) and "refused" in str(e.value)
    # a spec shown anywhere has its credentials masked
    assert SECRET not in repr(LLM(Echo(), spec=f"openai-compatible:http://u:{SECRET}@h/v1#m"))
