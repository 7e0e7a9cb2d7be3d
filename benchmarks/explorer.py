"""Speed of the report pages (`ri view`, the explorer, `report_html`) and of a short `ri` command's start.

- **Report page**: `report_html` of a committed report (default `metric_validity`, 506 items, about 60,000 coloured
  step cells), with the colormap built once (`run.explore._cmap`, the library's path) against a baseline in the
  same process that asks `matplotlib.colormaps[name]` for every cell (the library's path before: the registry hands
  out a copy whose 256-entry lookup table is built on its first call). Both pages must be byte-identical.
- **`ri` start**: `ri score` of a three-line log with `--signals length` in a fresh process, as the library runs it
  (`run.params` imports nbformat only where a notebook is read), against the same command in a process that imports
  nbformat first (the library's path before; nbformat's import pulls in jsonschema's format checkers, which build
  some forty Lark grammars). Median of `--repeats` runs each, alternated.

Ends with `BENCH explorer_page ratio=... target=3 ok|short` and `BENCH ri_score_start ratio=... target=1.2 ok|short`
(or `busy: not measured`). Results are in benchmarks/README.md.

    .venv/bin/python benchmarks/explorer.py [--report metric_validity] [--repeats 5]
"""
import argparse, json, statistics, subprocess, sys, tempfile, time
from pathlib import Path

from _host import Host

ROOT = Path(__file__).resolve().parents[1]


def page(name: str, cached: bool) -> tuple[str, float]:
    "`report_html(name)` with the colormap built once (`cached`) or fetched from matplotlib's registry per cell."
    from matplotlib import colormaps
    from reasoning_integrity.run import explore
    keep = explore._cmap
    if not cached: explore._cmap = lambda n: colormaps[n]
    try:
        t = time.perf_counter(); html = explore.report_html(name, reports_dir=ROOT / "reports")
        return html, time.perf_counter() - t
    finally: explore._cmap = keep


def ri_score(work: Path, preload: bool) -> float:
    "Wall seconds of `ri score` on a three-line log in a fresh process (`preload`: nbformat imported first)."
    code = ("import sys\n" + ("import nbformat\n" if preload else "") +
            "from reasoning_integrity.run.cli import main\n"
            f"sys.exit(main(['score', 'ok.jsonl', '--signals', 'length', '--name', 'b', '--reports-dir', {str(work / 'reports')!r}, "
            f"'--no-progress', '--root', {str(ROOT)!r}]))")
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], cwd=work, check=True, capture_output=True)
    return time.perf_counter() - t


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--report", default="metric_validity", help="a committed report under reports/")
    ap.add_argument("--repeats", type=int, default=5, help="fresh `ri score` processes per variant")
    a = ap.parse_args(argv)
    host = Host.start()
    new, t_new = page(a.report, True)
    old, t_old = page(a.report, False)
    assert new == old, "the two paths drew different pages"
    with tempfile.TemporaryDirectory() as d:
        work = Path(d)
        (work / "ok.jsonl").write_text("".join(json.dumps({"id": f"q{i}", "chain": f"{i} + 1 = {i + 1}\n\nso {i + 1}"}) + "\n"
                                               for i in range(3)))
        runs = {True: [], False: []}
        for _ in range(a.repeats):
            for pre in (True, False): runs[pre].append(ri_score(work, pre))
    s_old, s_new = statistics.median(runs[True]), statistics.median(runs[False])
    host.stop()
    print(host.describe())
    print(f"report page {a.report}: {t_new:.2f} s with the colormap built once, {t_old:.2f} s fetched per cell "
          f"({len(new):,} characters, identical)")
    print(f"ri score (fresh process, median of {a.repeats}): {s_new:.2f} s; with nbformat imported first {s_old:.2f} s")
    r1, r2 = t_old / t_new, s_old / s_new
    print(host.bench("explorer_page", "ratio", r1, 3, r1 >= 3, ".2f"))
    print(host.bench("ri_score_start", "ratio", r2, 1.2, r2 >= 1.2, ".2f"))


if __name__ == "__main__":
    main()
