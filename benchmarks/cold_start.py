"""Cold start: `make reproduce` (quick profile) from a fresh clone with an empty model cache, timed by phase.

Phases, each timed on its own, in a fresh clone of this repository (`git clone` of the checkout's HEAD into a
temporary folder, `../shared` linked beside it as CI has it) and a fresh, empty `RI_CACHE_DIR`:

1. install: `make install` (the venv, the CPU build of torch, the package with its extras, as README's commands do;
   pip's own download cache is whatever this machine has: say so when comparing machines);
2. NLI build: `ri models build-nli` (the project's NLI model trained from scratch);
3. experiments cold: `ri reproduce --profile quick`, every experiment from an empty response cache (the GGUF
   assembled from its PyPI packages on first use), wall time per experiment from the runner;
4. experiments warm: the same command again (every model response from the cache).

Targets (issue 18): phases 1-3 together <= 15 min on 2 cores; the warm re-run <= 2 min. Ends with BENCH lines.

    .venv/bin/python benchmarks/cold_start.py [--keep] [--workdir DIR]

It takes as long as what it measures (about 30-40 min at the time of writing), and uses both cores: run it on a
quiet machine, nothing else running.
"""
import argparse, json, os, shutil, subprocess, sys, tempfile, time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(cmd, cwd, env, log):
    t = time.perf_counter()
    with open(log, "ab") as f:
        r = subprocess.run(cmd, cwd=cwd, env=env, stdout=f, stderr=subprocess.STDOUT, shell=isinstance(cmd, str))
    if r.returncode: raise SystemExit(f"{cmd!r} failed ({r.returncode}); see {log}")
    return time.perf_counter() - t


def experiments(clone, env, log):
    "Run the quick profile through the clone's own runner; per-experiment walls."
    code = ("import json; from reasoning_integrity.run.runner import reproduce; "
            "r = reproduce(profile='quick', progress=False); "
            "print('RESULT', json.dumps(dict(zip(r.name, r.wall_s)))); "
            "raise SystemExit(0 if (r.status == 'ok').all() else 1)")
    t = time.perf_counter()
    out = subprocess.run([str(clone / ".venv/bin/python"), "-c", code], cwd=clone, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t
    Path(log).open("a").write(out.stdout + out.stderr)
    if out.returncode: raise SystemExit(f"reproduce failed; see {log}")
    line = next(l for l in out.stdout.splitlines() if l.startswith("RESULT "))
    return wall, json.loads(line[len("RESULT "):])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workdir", type=Path, default=None, help="where the clone goes (default: a new temporary folder)")
    ap.add_argument("--keep", action="store_true", help="keep the clone and its cache afterwards")
    a = ap.parse_args()
    work = a.workdir or Path(tempfile.mkdtemp(prefix="ri-cold-"))
    work.mkdir(parents=True, exist_ok=True)
    clone, cache, log = work / "main", work / "cache", work / "cold_start.log"
    shared = ROOT.parent / "shared"
    if shared.exists() and not (work / "shared").exists(): (work / "shared").symlink_to(shared)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RI_", "VIRTUAL_ENV"))}
    env["RI_CACHE_DIR"] = str(cache)                                   # an empty model and response cache
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if ".venv" not in p)
    load0 = os.getloadavg()[0]
    t = {}
    t["clone"] = run(["git", "clone", "-q", str(ROOT), str(clone)], work, env, log)
    t["install"] = run(["make", "install"], clone, env, log)
    env["RI_DATA_DIR"] = str((work / "shared" / "data").resolve()) if (work / "shared" / "data").exists() else ""
    t["nli_build"] = run([str(clone / ".venv/bin/ri"), "models", "build-nli"], clone, env, log)
    t["cold"], cold = experiments(clone, env, log)
    t["warm"], warm = experiments(clone, env, log)
    total = t["clone"] + t["install"] + t["nli_build"] + t["cold"]
    print(f"fresh clone in {work}; log {log}")
    for k in ("clone", "install", "nli_build", "cold", "warm"): print(f"  {k:<10} {t[k]:7.0f} s")
    print("  experiments, cold / warm (s): " + ", ".join(f"{n} {cold[n]:.0f}/{warm.get(n, float('nan')):.0f}" for n in cold))
    print(f"load average {load0:.2f} at start, {os.getloadavg()[0]:.2f} at end, {os.cpu_count()} CPUs")
    print(f"BENCH cold_start wall_s={total:.0f} target=900 {'ok' if total <= 900 else 'short'}")
    print(f"BENCH warm_rerun wall_s={t['warm']:.0f} target=120 {'ok' if t['warm'] <= 120 else 'short'}")
    if not a.keep: shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
