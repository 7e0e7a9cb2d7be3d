"The benchmarks' load guard (`benchmarks/_host.py`): its decision on given readings, and that every benchmark uses it."
import importlib.util, re, sys, time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("_host", ROOT / "benchmarks" / "_host.py")
H = importlib.util.module_from_spec(spec); sys.modules.setdefault("_host", H); spec.loader.exec_module(H)


@pytest.mark.parametrize("others,cpus,busy", [
    (0.0, 2, False), (0.3, 2, False), (0.5, 2, False),   # at most a quarter of the CPUs: a verdict
    (0.51, 2, True), (1.0, 2, True), (2.0, 2, True),     # scale_out's 1.02x came from a machine like these
    (1.9, 8, False), (2.1, 8, True),
    (float("nan"), 2, False),                            # no reading: no refusal on its account
])
def test_busy_limit(others, cpus, busy):
    assert H.is_busy(others, cpus) is busy


def test_verdicts():
    assert H.verdict(True, False) == "ok" and H.verdict(False, False) == "short"
    assert H.verdict(True, True) == H.verdict(False, True) == "busy: not measured"


def test_others_busy():
    # 100 s of wall time, the machine spent 150 CPU s of which 110 were the benchmark's own: 0.4 cores of other work
    assert H.others_busy(150.0, 110.0, 100.0) == pytest.approx(0.4)
    assert H.others_busy(100.0, 120.0, 100.0) == 0.0          # own time counted a little late: never negative
    assert H.others_busy(0.03, 0.0, 0.01, n_cpus=2) == 2       # 10-ms ticks over a short interval: at most every CPU


def host(before, during, cpus=2):
    return H.Host(n_cpus=cpus, load_start=(before, before, before), others_before=before, others_during=during,
                  load_end=(during, during, during), wall_s=10.0)


def test_bench_lines():
    assert host(0.1, 0.2).bench("scale_out_nli", "ratio", 1.83, 1.6, True, ".2f") == "BENCH scale_out_nli ratio=1.83 target=1.6 ok"
    assert host(0.1, 0.2).bench("x", "wall_s", 950, 900, False, ".0f") == "BENCH x wall_s=950 target=900 short"
    busy_start = host(1.3, 0.2).bench("scale_out_nli", "ratio", 1.02, 1.6, False, ".2f")
    assert busy_start.startswith("BENCH scale_out_nli ratio=1.02 target=1.6 busy: not measured") and "1.30 of 2 CPUs" in busy_start
    assert "busy: not measured" in host(0.1, 0.9).bench("x", "ratio", 2.0, 1.6, True)   # a job started mid-run
    # figures the load cannot change keep their verdict
    assert host(1.5, 1.5).bench("acc", "worst_drop", 0.1, 0.5, True, timed=False) == "BENCH acc worst_drop=0.1 target=0.5 ok"
    assert "-> busy" in host(1.5, 0.0).describe() and "-> busy" not in host(0.2, 0.3).describe()


def test_readings_here():
    "The live readings are numbers in range (what a benchmark prints), and an idle sample of this process is not its own work."
    h = H.Host.start(sample_s=0.2, wait=0, quiet=True)
    t = time.perf_counter()
    while time.perf_counter() - t < 0.5: sum(i * i for i in range(10_000))   # half a second of this process's own work
    h.stop()
    assert h.n_cpus >= 1 and h.wall_s >= 0.5 and len(h.load_start) == 3
    for x in (h.others_before, h.others_during): assert x != x or 0 <= x <= h.n_cpus


def test_every_benchmark_uses_the_guard():
    "Every benchmark prints its BENCH lines through `Host.bench` (so a busy machine gets no ok/short) and prints the load."
    for f in sorted((ROOT / "benchmarks").glob("*.py")):
        if f.name.startswith("_"): continue
        src = f.read_text()
        assert "Host.start(" in src and ".describe()" in src, f"{f.name}: no load reading"
        assert not re.search(r"""print\(f?["']BENCH""", src), f"{f.name}: prints a BENCH line without the load guard"
