"""`make test` from a fresh clone after `make reproduce`, timed: README's test command, as a user runs it second.

In a fresh clone where `make reproduce` has run (the venv installed, the NLI model built, the model caches filled):
`--workdir DIR` takes the clone `benchmarks/cold_start.py --keep --workdir DIR` left; without it the script makes
one (`git clone` of HEAD, an empty `RI_CACHE_DIR`, this machine's pip cache, `make reproduce`, untimed). Then it
times `make test` (the library notebooks with nbdev_test, then pytest without the `integration` tests) and, with
`--integration`, `make test-integration` (what CI runs after it), reporting wall and CPU seconds of each, the
notebooks' and pytest's shares (from the Makefile's `[test]` log lines), and pytest's 15 slowest tests.

Ends with `BENCH make_test wall_s=... target=900 ok|short` (issue 41: <= 15 min on 2 cores), or `busy: not measured`
when other work kept the machine busy (`benchmarks/_host.py`).

    python3 benchmarks/make_test.py [--workdir DIR] [--integration] [--keep]
"""
import argparse, os, re, resource, shutil, subprocess, sys, tempfile, time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _host import Host

ROOT = Path(__file__).resolve().parents[1]
TARGET = 900


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd, cwd, env, log):
    "Run `cmd` with output to `log` (appended); wall and CPU seconds, exit status."
    c0, t0 = _children_cpu(), time.perf_counter()
    with open(log, "ab") as f:
        f.write(f"\n### {' '.join(cmd)}\n".encode()); f.flush()
        r = subprocess.run(cmd, cwd=cwd, env=env, stdout=f, stderr=subprocess.STDOUT)
    return time.perf_counter() - t0, _children_cpu() - c0, r.returncode


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workdir", type=Path, default=None, help="a folder cold_start.py --keep left (its clone is DIR/main)")
    ap.add_argument("--integration", action="store_true", help="also time `make test-integration`")
    ap.add_argument("--keep", action="store_true", help="keep the clone this script made")
    a = ap.parse_args()
    made = a.workdir is None
    work = Path(tempfile.mkdtemp(prefix="ri-maketest-")) if made else a.workdir
    clone, log = work / "main", work / "make_test.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RI_", "VIRTUAL_ENV"))}
    env["RI_CACHE_DIR"] = str(work / "cache")
    if (work / "pip-cache").is_dir(): env["PIP_CACHE_DIR"] = str(work / "pip-cache")
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if ".venv" not in p)
    if made:
        shared = ROOT.parent / "shared"
        if shared.exists(): (work / "shared").symlink_to(shared)
        print(f"fresh clone in {work}, then `make reproduce` (not timed)", flush=True)
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        w, _, rc = timed(["make", "reproduce"], clone, env, log)
        if rc: raise SystemExit(f"make reproduce failed; see {log}")
        print(f"  make reproduce: {w:.0f} s (not part of the figure)", flush=True)
    elif not (clone / ".venv").is_dir():
        raise SystemExit(f"{clone} has no .venv: run benchmarks/cold_start.py --keep --workdir {work} first")
    host = Host.start()
    res = {}
    for target in ["test"] + (["test-integration"] if a.integration else []):
        start = log.stat().st_size if log.exists() else 0
        wall, cpu, rc = timed(["make", target], clone, env, log)
        text = log.read_text(errors="replace")[start:]
        parts = dict(re.findall(r"\[test\] (\S+): exit \d+ in (\d+) s", text))
        summary = next((l for l in reversed(text.splitlines()) if re.search(r"\d+ (passed|failed)", l)), "")
        res[target] = dict(wall=wall, cpu=cpu, rc=rc, parts=parts, summary=summary.strip("= "))
        print(f"make {target}: {wall:.0f} s wall, {cpu:.0f} s CPU, exit {rc}; "
              + ", ".join(f"{k} {v} s" for k, v in parts.items()) + f"; pytest: {res[target]['summary']}", flush=True)
        slow = re.findall(r"^(\d+\.\d+)s (call|setup|teardown)\s+(\S+)", text, re.M)
        for s, kind, name in sorted(slow, key=lambda x: -float(x[0]))[:15]: print(f"    {float(s):7.1f} s {kind:<8} {name}")
    host.stop()
    print(host.describe())
    t = res["test"]
    print(host.bench("make_test", "wall_s", t["wall"], TARGET, t["wall"] <= TARGET and t["rc"] == 0, ".0f",
                     timed=t["rc"] == 0))
    if a.integration:
        i = res["test-integration"]
        print(f"make test-integration: {i['wall']:.0f} s (no target; exit {i['rc']})")
    if made and not a.keep: shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
