"""The full metric-validity profile on 2 cores: cold (every NLI pair, embedding and judge call computed) and warm.

Each run is `ri reproduce metric_validity --profile full` in a subprocess, into a throw-away reports folder, with its
own empty model cache (`RI_CACHE_DIR`, where only the built NLI model is linked in: building it is `make reproduce`'s
one-time step, `benchmarks/nli_build.py`, not part of a run). Measured per run: wall time (the `ri` process), and
what the run computed, read from its caches afterwards: NLI pairs scored, texts embedded, LLM judge calls.

- `--sizes 3400` (default): the whole profile cold, then again warm on the same cache.
  `BENCH metric_validity_full_cold wall_s=... target=3600` and `BENCH metric_validity_full_warm wall_s=... target=180`.
- `--sizes 100,300,1000`: the cost table's smaller rows: the same profile with `pb_per_subset` = N/4 ProcessBench
  solutions per subset (everything else as in the full profile), each cold on its own empty cache.
- `--warm DIR`: only the warm run, on a cache a cold run left (`--keep-cache DIR`).

    .venv/bin/python benchmarks/metric_validity_full.py [--sizes 3400] [--keep-cache DIR] [--warm DIR]

A machine running anything else distorts the figures: the load average at the start and end of each run is printed,
and the BENCH lines, printed at the end, say `busy: not measured` when other work kept the machine busy (`_host.py`).
"""
import argparse, json, os, shutil, sqlite3, subprocess, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COLD, WARM = 3600, 180
sys.path.insert(0, str(Path(__file__).resolve().parent))
from _host import Host


def _rows(db: Path, table: str) -> int:
    if not db.exists(): return 0
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try: return con.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
    finally: con.close()


def _load() -> str: return open("/proc/loadavg").read().split()[0] if os.path.exists("/proc/loadavg") else "?"


def run(cache: Path, out: Path, n_pb: int | None) -> dict:
    "One `ri reproduce metric_validity --profile full` with `cache` as RI_CACHE_DIR; wall time and what it computed."
    env = {**os.environ, "RI_CACHE_DIR": str(cache), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "TOKENIZERS_PARALLELISM": "false"}
    env.setdefault("RI_DATA_DIR", str((ROOT.parent / "shared" / "data").resolve()))
    before = dict(nli=_rows(cache / "nli/nli.sqlite", "nli"), emb=_rows(cache / "embeddings/embeddings.sqlite", "emb"),
                  llm=_rows(cache / "llm/responses.sqlite", "responses"))
    cmd = [sys.executable, "-m", "reasoning_integrity.run.cli", "reproduce", "metric_validity", "--profile", "full",
           "--reports-dir", str(out), "--no-progress", *(["-p", f"pb_per_subset={n_pb // 4}"] if n_pb else [])]
    l0, t0 = _load(), time.perf_counter()
    r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if r.returncode: raise SystemExit(f"run failed ({r.returncode}):\n{(r.stdout + r.stderr)[-3000:]}")
    rec = json.loads((out / "metric_validity" / "run.json").read_text())
    return dict(wall_s=round(wall, 1), notebook_s=rec["wall_s"], load_start=l0, load_end=_load(),
                nli_pairs=_rows(cache / "nli/nli.sqlite", "nli") - before["nli"],
                texts=_rows(cache / "embeddings/embeddings.sqlite", "emb") - before["emb"],
                judge_calls=_rows(cache / "llm/responses.sqlite", "responses") - before["llm"])


def fresh_cache(base: Path) -> Path:
    "An empty model cache with the user's built NLI model linked in."
    from reasoning_integrity.models.nli import default_nli_path
    built = default_nli_path()
    if not (built / "model_card.json").exists(): raise SystemExit("build the NLI model first: .venv/bin/ri models build-nli")
    (base / "models").mkdir(parents=True)
    (base / "models" / built.name).symlink_to(built)
    return base


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="3400", help="ProcessBench solutions per run, comma-separated (3400: the whole profile)")
    ap.add_argument("--keep-cache", default=None, help="leave the 3400 run's model cache in this folder (for a warm reproduce)")
    ap.add_argument("--warm", default=None, metavar="DIR",
                    help="only the warm run, on the model cache a cold run left in DIR (--keep-cache)")
    a = ap.parse_args(argv)
    host, bench = Host.start(), []
    if a.warm:
        out = Path(tempfile.mkdtemp(prefix="ri-mvfull-warm-"))
        try: warm = run(Path(a.warm), out, None)
        finally: shutil.rmtree(out, ignore_errors=True)
        print(json.dumps(dict(solutions=3400, run="warm", **warm)))
        if warm["nli_pairs"] or warm["texts"] or warm["judge_calls"]: print(f"note: the cache in {a.warm} was not complete")
        print(host.stop().describe())
        print(host.bench("metric_validity_full_warm", "wall_s", warm["wall_s"], WARM, warm["wall_s"] <= WARM, ".0f"))
        return
    tmp = Path(tempfile.mkdtemp(prefix="ri-mvfull-"))
    rows = []
    try:
        for n in [int(x) for x in a.sizes.split(",")]:
            cache = fresh_cache(Path(a.keep_cache) if a.keep_cache and n == 3400 else tmp / f"cache{n}")
            cold = run(cache, tmp / f"r{n}", None if n >= 3400 else n)
            rows.append(dict(solutions=n, run="cold", **cold)); print(json.dumps(rows[-1]), flush=True)
            if n < 3400: bench.append((f"metric_validity_full_cold_{n}", cold["wall_s"], COLD))
            if n >= 3400:
                warm = run(cache, tmp / f"r{n}w", None)
                rows.append(dict(solutions=n, run="warm", **warm)); print(json.dumps(rows[-1]), flush=True)
                bench += [("metric_validity_full_cold", cold["wall_s"], COLD), ("metric_validity_full_warm", warm["wall_s"], WARM)]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("\n| ProcessBench solutions | run | wall s | NLI pairs | texts embedded | judge calls | load start/end |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['solutions']:,} | {r['run']} | {r['wall_s']:.0f} | {r['nli_pairs']:,} | {r['texts']:,} | "
              f"{r['judge_calls']:,} | {r['load_start']}/{r['load_end']} |")
    print(host.stop().describe())
    for name, wall, target in bench: print(host.bench(name, "wall_s", wall, target, wall <= target, ".0f"))


if __name__ == "__main__":
    main()
