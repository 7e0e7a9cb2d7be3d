"""Scale-out: NLI pair scoring on one Ray actor vs two, and LLM calls to one stub endpoint vs a pool of two.

Both ratios are measured in this process against a baseline run the same way (same inputs, same settings):
- NLI: the same distinct pairs scored through a pool of one Ray actor and a pool of two (persistent actors, the
  `ray` executor), one torch thread per actor (so two actors use the two cores), caches off. Each pool is started
  and its model loaded by a small warm-up call, timed on its own (the start-up a run pays once); the ratio is of the
  steady-state scoring time. Target: two actors >= 1.6x one. The project's NLI model is used when built
  (`ri models build-nli`), else a random-weight model of the same tokenizer (the throughput is then not the real one).
  The same comparison through the `ray-data` engine (a Ray Data pipeline per call, start-up included) is printed
  beside it, without a target.
- LLM: the same requests to the project's OpenAI-compatible stub (its own process, loopback, fixed latency) through
  one endpoint with `per_endpoint` requests in flight, then through `pool:` of two such endpoints. Target: >= 1.8x.
Beside the ratios: the fp32 ceiling measured in the same sitting (`_host.fp32_ceiling`: GFLOP/s of torch.mm in one
process of one thread, then in two such processes at once), whose ratio is the most a pool of two could gain at that
moment, and the machine's load; on a busy machine the BENCH lines say `busy: not measured` (`_host.py`).
Then a cost model: pairs/s per worker, calls/s per endpoint, and what they predict for a full SCOS run (4,241
ScienceQA questions x k = 10 sampled chains), with the NLI pairs per chain counted by `ChainScorer` on the 90 logged
ScienceQA chains of `reports/alignment_logged` (a counting scorer, no model).

    .venv/bin/python benchmarks/scale_out.py [--pairs 1200] [--requests 160] [--latency 0.1] [--per-endpoint 4]
"""
import argparse, json, os, tempfile, time
from pathlib import Path

import numpy as np

from _host import Host, fp32_ceiling

ROOT = Path(__file__).resolve().parents[1]


def _pairs(n, seed=0):
    "n distinct premise/hypothesis pairs of 8-30 words (the length of ScienceQA explanation sentences)."
    rng = np.random.default_rng(seed)
    words = ("the a an cat dog plant river heat energy force magnet water cell animal moves grows is not never always "
             "because so therefore more less warmer colder larger smaller trait inherited acquired rhyme sound").split()
    s = lambda: " ".join(rng.choice(words, size=int(rng.integers(8, 31))))
    return [s() for _ in range(n)], [s() for _ in range(n)]


def nli_model():
    try:
        from reasoning_integrity.models.nli import _resolve_default
        return str(_resolve_default()), "project NLI model (MiniLM-L6 cross-encoder)"
    except Exception:
        from reasoning_integrity.models.nli import make_tiny_nli_model
        return str(make_tiny_nli_model(Path(tempfile.mkdtemp()) / "tiny")), "random-weight 2-layer model (NLI model not built)"


def bench_nli(n_pairs):
    import ray, torch
    from reasoning_integrity.core.executor import RayExecutor
    from reasoning_integrity.models.nli import NLIModel
    model, what = nli_model()
    P, H = _pairs(n_pairs)
    torch.set_num_threads(1)
    sc = NLIModel(model, cache=False); sc.predict(P[-8:], H[-8:])   # model loaded before timing
    t0 = time.perf_counter(); sc.predict(P[:200], H[:200]); local = 200 / (time.perf_counter() - t0)
    out, times, start, data = {}, {}, {}, {}
    for n in (1, 2):
        ex = RayExecutor(num_workers=n, num_cpus=os.cpu_count(), threads=1)
        t0 = time.perf_counter()
        # one batch per actor: each of the n idle actors takes one, so every actor has loaded its model before timing
        # (with fewer batches than actors the others would still be loading while the timed run starts)
        bs = NLIModel(model, cache=False).batch_size
        NLIModel(model, cache=False, executor=ex).predict(P[-n * bs:], H[-n * bs:])
        start[n] = time.perf_counter() - t0
        t0 = time.perf_counter()
        out[n] = NLIModel(model, cache=False, executor=ex).predict(P, H)
        times[n] = time.perf_counter() - t0
        ex.shutdown()
    for n in (1, 2):   # the Ray Data engine: a pipeline per call, actor start-up and model load included
        ex = RayExecutor(num_workers=n, num_cpus=os.cpu_count(), threads=1, engine="data")
        t0 = time.perf_counter()
        got = NLIModel(model, cache=False, executor=ex).predict(P, H)
        data[n] = time.perf_counter() - t0
        assert np.array_equal(got, out[1])
    ray.shutdown()
    assert np.array_equal(out[1], out[2])
    return dict(model=what, pairs=n_pairs, local_1thread_pairs_s=local, one_s=times[1], two_s=times[2],
                start_one_s=start[1], start_two_s=start[2], ratio=times[1] / times[2],
                per_worker_pairs_s=n_pairs / times[2] / 2, data_one_s=data[1], data_two_s=data[2])


def bench_llm(n, latency, per):
    from reasoning_integrity.models.llm import Request, get_llm
    from reasoning_integrity.models.openai_backend import stub_server
    reqs = [Request(messages=[{"role": "user", "content": f"request {i}"}], max_tokens=16) for i in range(n)]
    with stub_server(latency=latency) as u1, stub_server(latency=latency) as u2:
        one = get_llm(f"openai-compatible:{u1}#stub", cache=False, concurrency=per)
        pool = get_llm(f"pool:openai-compatible:{u1}#stub|openai-compatible:{u2}#stub", cache=False, per_endpoint=per)
        one.generate(reqs[:per], progress=False); pool.generate(reqs[:2 * per], progress=False)   # warm-up
        t0 = time.perf_counter(); a = one.generate(reqs, progress=False); t1 = time.perf_counter() - t0
        t0 = time.perf_counter(); b = pool.generate(reqs, progress=False); t2 = time.perf_counter() - t0
    assert [r.text for r in a] == [r.text for r in b] and all(r.ok for r in b)
    return dict(requests=n, latency=latency, per_endpoint=per, one_s=t1, two_s=t2, ratio=t1 / t2,
                calls_s_per_endpoint=n / t2 / 2, served=dict(pool.backend.served))


def pairs_per_chain():
    "NLI pairs `ChainScorer` asks for per (reference, chain) item, on the logged ScienceQA chains (a counting scorer)."
    from reasoning_integrity.lines.trajectory.divergence import hashing_embedder
    from reasoning_integrity.lines.alignment.scos import ChainScorer
    class Count:
        n = 0
        def predict(self, p, h, progress=False): Count.n += len(p); return np.full((len(p), 3), 1 / 3)
    recs = [json.loads(l) for l in (ROOT / "reports/alignment_logged/records/items.jsonl").read_text().splitlines()]
    refs = [[l.split(" ", 1)[1] for l in r["reference"].splitlines()] for r in recs if r.get("reference") and r.get("steps")]
    chains = [r["steps"] for r in recs if r.get("reference") and r.get("steps")]
    ChainScorer(Count(), hashing_embedder()).score(refs, chains)
    return Count.n / len(chains), len(chains)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=1200)
    ap.add_argument("--requests", type=int, default=160)
    ap.add_argument("--latency", type=float, default=0.1)
    ap.add_argument("--per-endpoint", type=int, default=4)
    a = ap.parse_args()
    host = Host.start()
    ceil1, ceil2 = fp32_ceiling(1), fp32_ceiling(2)
    nl = bench_nli(a.pairs)
    ll = bench_llm(a.requests, a.latency, a.per_endpoint)
    ppc, n_items = pairs_per_chain()
    print(f"NLI ({nl['model']}): {nl['pairs']} pairs, 1 actor {nl['one_s']:.1f} s, 2 actors {nl['two_s']:.1f} s "
          f"-> {nl['ratio']:.2f}x (target >= 1.6); in-process 1 thread {nl['local_1thread_pairs_s']:.0f} pairs/s; "
          f"{nl['per_worker_pairs_s']:.0f} pairs/s per actor; pool start-up (actors + model load) "
          f"{nl['start_one_s']:.1f} s for 1, {nl['start_two_s']:.1f} s for 2")
    print(f"NLI through ray-data (a pipeline per call, start-up included): 1 actor {nl['data_one_s']:.1f} s, "
          f"2 actors {nl['data_two_s']:.1f} s -> {nl['data_one_s'] / nl['data_two_s']:.2f}x")
    print(f"LLM: {ll['requests']} requests at {ll['latency']*1000:.0f} ms, {ll['per_endpoint']} in flight per endpoint: "
          f"1 endpoint {ll['one_s']:.2f} s, pool of 2 {ll['two_s']:.2f} s -> {ll['ratio']:.2f}x (target >= 1.8); "
          f"{ll['calls_s_per_endpoint']:.1f} calls/s per endpoint; served {ll['served']}")
    total_pairs = 4241 * 10 * ppc
    print(f"cost model: {ppc:.0f} NLI pairs per chain (ChainScorer on {n_items} logged ScienceQA chains); a full SCOS "
          f"run = 4,241 x 10 chains = {total_pairs/1e6:.2f} M pairs (before de-duplication)")
    for n in (1, 2, 8, 32):
        print(f"  {n:>3} workers at {nl['per_worker_pairs_s']:.0f} pairs/s each: {total_pairs / (n * nl['per_worker_pairs_s']) / 3600:.1f} h")
    print("  a GPU actor's rate is measured by this script on the cluster (RI_RAY_ADDRESS set; num_gpus=1 per actor)")
    print(f"fp32 ceiling (torch.mm 1024x1024, one thread per process): 1 process {ceil1:.1f} GFLOP/s, 2 "
          f"processes {ceil2:.1f} GFLOP/s -> {ceil2 / ceil1:.2f}x, the most a pool of two could gain now "
          f"(the NLI pool reached {nl['ratio'] / (ceil2 / ceil1):.0%} of it)")
    print(host.stop().describe())
    print(host.bench("scale_out_nli", "ratio", nl["ratio"], 1.6, nl["ratio"] >= 1.6, ".2f"))
    print(host.bench("scale_out_llm", "ratio", ll["ratio"], 1.8, ll["ratio"] >= 1.8, ".2f"))


if __name__ == "__main__":
    main()
