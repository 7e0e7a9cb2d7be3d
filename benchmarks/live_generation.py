"""Live generation on the embedded model (llama.cpp, Gemma 3 270M Q4_K_M) against its own token-throughput limit.

The limit is measured in this process, on plain completions with a second `llama_cpp.Llama` instance of the same settings:
- prompt evaluation rate: a 400-token prompt, evaluated from an empty context, one token generated;
- generation rate: 128 tokens greedy from a short prompt, no grammar.
Then `rep_protocol`'s calls (the four REP stages and a sampled baseline per problem, the quick profile's settings,
JSON-schema grammar as the notebook uses it) are made with the response cache off. For each call the script counts
the prompt tokens llama.cpp actually evaluates (every prompt token: the backend starts each request from an empty KV
cache; with `reuse_prefix=True`, the prompt minus the prefix it keeps from the previous call) and the tokens
generated. The limit of the run is sum(evaluated / prompt rate + generated / generation rate); the target is wall
time <= 1.5x that limit. The same calls are then made on a backend with `reuse_prefix=True` (llama.cpp's habit), so
the cost of evaluating every request from an empty KV cache is a ratio of two runs in one process.

It also times the same greedy generation with and without the REP grammar (same prompt, same number of tokens), so
the grammar's share of the gap is measured, not guessed.

    .venv/bin/python benchmarks/live_generation.py [--problems 3] [--max-tokens 160]
"""
import argparse, json, os, time

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problems", type=int, default=3)
    ap.add_argument("--max-tokens", type=int, default=160)
    a = ap.parse_args()
    from _host import Host
    host = Host.start()
    from llama_cpp import LlamaGrammar
    from reasoning_integrity.models.llm import get_llm
    from reasoning_integrity.lines.trajectory.tasks import rep_problems
    from reasoning_integrity.lines.trajectory.protocol import run_rep, RepConfig
    from reasoning_integrity.lines.trajectory.types import SCHEMAS
    from reasoning_integrity.models.llamacpp import LlamaCppBackend
    llm = get_llm("llamacpp:gemma3-270m", cache=None)
    be = llm.backend
    m = be.model()
    # The limit rates come from a second instance with the same settings, run on the backend's own worker thread as
    # the REP calls are: llama.cpp's OpenMP threads belong to the calling thread, and a team left on another thread
    # made the same 15 REP calls take 76 s instead of 51 s (2026-12-01, before `LocalBackend.on_thread`).
    m_lim = LlamaCppBackend().model()
    on = lambda fn, *a, **k: be.on_thread(fn, *a, **k).result()

    text = " ".join(["The quick brown fox jumps over the lazy dog."] * 40)
    m_lim.reset(); t = time.perf_counter(); out = on(m_lim.create_completion, prompt=text, max_tokens=1, temperature=0)
    pp_rate = out["usage"]["prompt_tokens"] / (time.perf_counter() - t)
    m_lim.reset(); t = time.perf_counter()
    out = on(m_lim.create_completion, prompt="Once upon a time", max_tokens=128, temperature=0, stop=[])
    tg_rate = out["usage"]["completion_tokens"] / (time.perf_counter() - t)

    # the grammar's cost per generated token: the same greedy continuation length with and without it
    schema = SCHEMAS["paired"]
    g = LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
    prompt = "Problem: 3 boxes hold 4 apples each. How many apples?\nReasoning as JSON:\n"
    m_lim.reset(); t = time.perf_counter()
    og = on(m_lim.create_completion, prompt=prompt, max_tokens=96, temperature=0, grammar=g)
    g_rate = og["usage"]["completion_tokens"] / (time.perf_counter() - t)
    m_lim.reset(); t = time.perf_counter()
    on_ = on(m_lim.create_completion, prompt=prompt, max_tokens=og["usage"]["completion_tokens"], temperature=0, stop=[])
    n_rate = on_["usage"]["completion_tokens"] / (time.perf_counter() - t)

    tasks = rep_problems(a.problems, seed=0)
    def rep_run(llm):   # (wall seconds, one record per call, the generated texts)
        be, log = llm.backend, []
        m, orig = be.model(), be.complete
        def timed(req):
            toks = m.tokenize(req.prompt.encode(), add_bos=True, special=True)
            reuse = m.longest_token_prefix(m._input_ids.tolist(), toks[:-1]) if be.reuse_prefix else 0   # not evaluated again
            t = time.perf_counter(); r = orig(req); dt = time.perf_counter() - t
            u = r.usage or {}
            log.append(dict(s=dt, prompt=u.get("prompt_tokens", 0), evaluated=u.get("prompt_tokens", 0) - reuse,
                            generated=u.get("completion_tokens", 0), grammar=req.json_schema is not None,
                            sampled=bool(req.temperature), text=r.text))
            return r
        be.complete = timed
        t = time.perf_counter()
        run_rep(llm, tasks, RepConfig(max_tokens=a.max_tokens, n_samples=1), progress=False)
        return time.perf_counter() - t, log
    wall, log = rep_run(llm)
    reused = get_llm("llamacpp:gemma3-270m", cache=None, reuse_prefix=True)
    wall_r, log_r = rep_run(reused)
    ev = sum(c["evaluated"] for c in log); pr = sum(c["prompt"] for c in log); gen = sum(c["generated"] for c in log)
    limit = ev / pp_rate + gen / tg_rate
    ratio = wall / limit
    print(f"limit rates (plain completion): prompt evaluation {pp_rate:.0f} tok/s, generation {tg_rate:.1f} tok/s")
    print(f"greedy generation with the REP grammar {g_rate:.1f} tok/s, without {n_rate:.1f} tok/s "
          f"({og['usage']['completion_tokens']} tokens each): the grammar costs {n_rate / g_rate:.2f}x per token")
    print(f"REP run: {len(log)} calls ({a.problems} problems), {pr} prompt tokens of which {ev} evaluated "
          f"({1 - ev / max(pr, 1):.0%} reused from the previous call's prefix), {gen} generated; wall {wall:.1f} s, "
          f"limit {limit:.1f} s ({ev / pp_rate:.1f} s prompt + {gen / tg_rate:.1f} s generation)")
    print(f"per call: wall {np.mean([c['s'] for c in log]):.2f} s mean; {sum(c['grammar'] for c in log)} of {len(log)} with a grammar")
    ev_r = sum(c["evaluated"] for c in log_r)
    same = sum(c["text"] == d["text"] for c, d in zip(log, log_r))
    print(f"the same calls with reuse_prefix=True: {ev_r} of {sum(c['prompt'] for c in log_r)} prompt tokens evaluated, "
          f"wall {wall_r:.1f} s; every request from an empty KV cache costs {wall / wall_r:.2f}x; "
          f"{same} of {len(log)} generated texts identical")
    if os.environ.get("RI_BENCH_VERBOSE"): [print(c) for c in log]
    for kind, cs in (("greedy", [c for c in log if not c["sampled"]]), ("sampled", [c for c in log if c["sampled"]])):
        if not cs: continue
        w, e, g = sum(c["s"] for c in cs), sum(c["evaluated"] for c in cs), sum(c["generated"] for c in cs)
        print(f"  {kind}: {len(cs)} calls, wall {w:.1f} s against a limit of {e / pp_rate + g / tg_rate:.1f} s "
              f"({e} tokens evaluated, {g} generated)")
    print(host.stop().describe())
    print(host.bench("live_generation", "ratio", ratio, 1.5, ratio <= 1.5, ".2f"))


if __name__ == "__main__":
    main()
