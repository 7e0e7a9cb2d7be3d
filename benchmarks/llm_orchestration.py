"""LLM orchestration overhead: 2,000 requests at concurrency 64 against a local OpenAI-compatible server.

The server (the stub of `reasoning_integrity.models.openai_backend`, in its own process, loopback only) answers
every request after a fixed 100 ms. With perfect overlap the batch takes ideal = n × latency / concurrency
(2,000 × 0.1 / 64 = 3.125 s); we print wall / ideal (target <= 1.3). Then the same 2,000 requests again, now
all served from the SQLite cache (target <= 1 s). The baseline is the ideal, computed for the same n, latency and
concurrency; the server's own counters confirm every request reached it exactly once in the first run and none
in the second.

    .venv/bin/python benchmarks/llm_orchestration.py [--n 2000] [--concurrency 64] [--latency 0.1]
"""
import argparse, os, tempfile, time
from pathlib import Path

from reasoning_integrity.models.llm import Request, get_llm
from reasoning_integrity.models.openai_backend import stub_server, stub_stats
from _host import Host


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--latency", type=float, default=0.1)
    a = ap.parse_args()
    host = Host.start()
    reqs = [Request(messages=[{"role": "user", "content": f"request {i}"}], max_tokens=16) for i in range(a.n)]
    ideal = a.n * a.latency / a.concurrency
    with tempfile.TemporaryDirectory() as tmp, stub_server(latency=a.latency) as url:
        spec, cache = f"openai-compatible:{url}#stub", Path(tmp) / "bench.sqlite"
        llm = get_llm(spec, cache=cache, concurrency=a.concurrency)
        llm.generate(reqs[:a.concurrency], progress=False)   # warm-up: imports, connections (not timed, not counted)
        llm.cache.clear()
        st0 = stub_stats(url)
        before = st0["requests"]
        c0, t0 = time.process_time(), time.perf_counter()
        live = llm.generate(reqs, progress=False)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        st1 = stub_stats(url)
        served, server_cpu = st1["requests"] - before, st1["cpu_s"] - st0["cpu_s"]
        s1 = llm.last_summary
        llm2 = get_llm(spec, cache=cache, concurrency=a.concurrency)
        t0 = time.perf_counter(); cached = llm2.generate(reqs, progress=False); wall_cache = time.perf_counter() - t0
        served_again = stub_stats(url)["requests"] - before - served
    assert s1.ok == a.n and served == a.n, (s1, served)
    assert llm2.last_summary.cached == a.n and served_again == 0
    assert [r.text for r in cached] == [r.text for r in live]
    ratio = wall / ideal
    print(f"{a.n} requests, {a.latency * 1000:.0f} ms server latency, concurrency {a.concurrency}")
    print(f"live : {wall:7.3f} s  (ideal {ideal:.3f} s; wall/ideal = {ratio:.2f}, target <= 1.3; "
          f"{a.n / wall:.0f} req/s; server saw {served})")
    print(f"CPU per request: client {cpu / a.n * 1000:.2f} ms ({llm.backend.http} transport), stub server "
          f"{server_cpu / a.n * 1000:.2f} ms; together {(cpu + server_cpu) / ideal:.2f} CPU-s per ideal second")
    print(f"cache: {wall_cache:7.3f} s  ({a.n / wall_cache:.0f} req/s; target <= 1 s; server saw {served_again})")
    ok1, ok2 = ratio <= 1.3, wall_cache <= 1.0
    print(host.stop().describe())
    print(host.bench("llm_orchestration_cache", "wall_s", wall_cache, 1.0, ok2, ".3f"))
    print(host.bench("llm_orchestration", "wall_over_ideal", ratio, 1.3, ok1, ".2f"))


if __name__ == "__main__":
    main()
