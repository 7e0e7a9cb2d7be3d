"""Issue 26, probes 1, 2, 9 and 10: the runner as a hostile or unlucky user meets it.

Each test repeats a probe of the issue against the real `ri` entry point (or `runner.reproduce`) and fails on the code
before the fix: a `-p` value that ran code, a failed or killed run that destroyed the last good report, concurrent
runs, folders that are not reports, a second checkout sharing the virtual environment, `-p` knobs silently ignored,
a stray report committed.
"""
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from reasoning_integrity.run import cli
from reasoning_integrity.run.folder import ReportBusy, ReportRefused
from reasoning_integrity.run.runner import reproduce

ROOT = Path(__file__).resolve().parents[1]
RI = [sys.executable, "-m", "reasoning_integrity.run.cli"]
pytestmark = pytest.mark.timeout(300)

INJECTIONS = [  # the payloads: each would write PWNED where papermill wrote the value as code
    "llm=('\"; import os; open(\"PWNED\", \"w\").close(); x = \"',)",
    "executor=('\"; import os; open(\"PWNED\", \"w\").close(); x = \"',)",
    "llm=b'\"; import os; open(\"PWNED\", \"w\").close(); x = \"'",
    "llm={('\"; import os; open(\"PWNED\", \"w\").close(); x = \"',): 1}",
]


def _nb(path: Path, *cells):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src, metadata={"tags": tags} if tags else {}) for src, tags in cells]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)


def _digest(d: Path) -> dict:
    "sha256 of every file under `d` (relative path -> hex)."
    return {p.relative_to(d).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(d.rglob("*")) if p.is_file()}


SLOW = '''import time, pandas as pd
from reasoning_integrity.run.report import Report
rep = Report(report_dir)
rep.table(pd.DataFrame({"tag": [tag]}), "t")
time.sleep(pause)
rep.finish()'''


@pytest.fixture
def repo(tmp_path) -> Path:
    "A throw-away checkout with one experiment, `slow`, that writes a table, sleeps `pause` seconds, then finishes."
    (tmp_path / "settings.ini").write_text("[DEFAULT]\n")
    _nb(tmp_path / "nbs/experiments/slow.ipynb",
        ('profile = "quick"\ntag = "first"  # written into the table\npause = 0.0  # seconds\nreport_dir = "reports/slow"',
         ["parameters"]),
        (SLOW, []))
    return tmp_path


def _ri(*args, cwd, env=None, **kw):
    return subprocess.run([*RI, *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, **kw)


# ---------------------------------------------------------------------------------------------- 1. -p runs code
@pytest.mark.parametrize("item", INJECTIONS)
def test_parameter_values_never_become_code(tmp_path, item):
    "Probe 1: the payloads are refused before any kernel starts (exit 2), and nothing is written anywhere."
    out = tmp_path / "reports"
    name = "rep_protocol" if item.startswith("executor") else "trajectory_scenarios"
    r = _ri("reproduce", name, "--root", str(ROOT), "--reports-dir", str(out), "--no-progress", "-p", item, cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert "only str, int, float, bool, None" in r.stderr and "nothing was run" in r.stderr
    assert not (tmp_path / "PWNED").exists() and not (ROOT / "PWNED").exists() and not out.exists()


def test_run_experiment_refuses_what_reproduce_did_not_check(repo):
    "Even `strict=False` (no declared-kind check) never injects a value that is not plain."
    from reasoning_integrity.run.runner import run_experiment
    with pytest.raises(ValueError, match="a tuple"):
        run_experiment(repo / "nbs/experiments/slow.ipynb", repo / "reports/slow",
                       {"tag": ('"; import os; open("PWNED", "w").close(); x = "',)}, root=repo, strict=False, progress=False)
    assert not (repo / "PWNED").exists() and not (repo / "reports/slow").exists()


# ------------------------------------------------------------------------------------- 2. nothing lost
@pytest.mark.parametrize("llm", ["openai-compatible:http://127.0.0.1:9/v1#m", "openai:gpt-4o-mini"])
def test_failure_at_the_first_model_call_keeps_the_report(tmp_path, llm):
    "Probe 2: the committed rep_protocol report, then a run whose first model call fails: every byte stays."
    out = tmp_path / "reports"
    shutil.copytree(ROOT / "reports/rep_protocol", out / "rep_protocol")
    before = _digest(out / "rep_protocol")
    r = _ri("reproduce", "rep_protocol", "--root", str(ROOT), "--reports-dir", str(out), "--no-progress",
            "-p", f"llm={llm}", cwd=tmp_path, env={"OPENAI_API_KEY": ""})
    assert r.returncode == 1, r.stdout + r.stderr
    assert "rep_protocol failed; previous untouched" in r.stderr
    assert _digest(out / "rep_protocol") == before
    assert (out / ".rep_protocol.failed" / "rep_protocol.ipynb").is_file()   # the failed run, kept aside
    page = (out / "index.html").read_text()
    assert "a later run failed" in page and "this is the previous complete report, untouched" in page


def _wait_for(pred, timeout=120.0):
    t0 = time.time()
    while time.time() - t0 < timeout:
        if pred(): return True
        time.sleep(0.2)
    return False


def test_kill_9_leaves_the_report_and_the_next_run_cleans_up(repo):
    "Probe 2: `kill -9` mid-run leaves the last report byte-identical (and index.html as it was); the next run completes."
    out = repo / "reports"
    assert _ri("reproduce", "slow", "--no-progress", cwd=repo).returncode == 0
    before, index = _digest(out / "slow"), (out / "index.html").read_bytes()
    p = subprocess.Popen([*RI, "reproduce", "slow", "--no-progress", "-p", "tag=second", "-p", "pause=60"], cwd=repo,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:  # the kernel has written its table into the staging folder: kill everything mid-run
        assert _wait_for(lambda: any(out.glob(".slow.staging-*/slow/tables/t.csv")))
    finally:
        os.killpg(p.pid, signal.SIGKILL); p.wait()
    assert _digest(out / "slow") == before and (out / "index.html").read_bytes() == index
    r = _ri("reproduce", "slow", "--no-progress", "-p", "tag=third", cwd=repo)
    assert r.returncode == 0, r.stderr
    assert "third" in (out / "slow/tables/t.csv").read_text()
    assert not list(out.glob(".slow.staging-*")) and not list(out.glob(".slow.previous-*"))


def test_concurrent_runs_one_report_or_one_clear_refusal(repo):
    "Probe 2: a second run started while the first runs is refused at once, naming the holder; the first completes."
    out = repo / "reports"
    first = subprocess.Popen([*RI, "reproduce", "slow", "--no-progress", "-p", "pause=8"], cwd=repo,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert _wait_for(lambda: any(out.glob(".slow.staging-*")))
    second = _ri("reproduce", "slow", "--no-progress", "-p", "tag=second", cwd=repo)
    assert second.returncode == 2 and "another run is writing this report (pid" in second.stderr, second.stderr
    assert first.wait(timeout=200) == 0, first.communicate()
    assert "first" in (out / "slow/tables/t.csv").read_text()
    assert json.loads((out / "slow/run.json").read_text())["status"] == "ok"


def test_folders_the_runner_did_not_write_are_refused(repo, tmp_path_factory):
    "Probe 2: a symlinked report folder, a foreign folder under --reports-dir and a foreign index.html: refused, untouched."
    target = tmp_path_factory.mktemp("target")
    (target / "precious.txt").write_text("keep")
    (repo / "reports").mkdir()
    (repo / "reports/slow").symlink_to(target)
    with pytest.raises(ReportRefused, match="is a symlink"):
        reproduce(["slow"], root=repo, progress=False)
    assert (target / "precious.txt").read_text() == "keep" and sorted(os.listdir(target)) == ["precious.txt"]
    (repo / "reports/slow").unlink()
    x = tmp_path_factory.mktemp("x")
    (x / "slow").mkdir(); (x / "slow/thesis.tex").write_text("chapter 1")
    (x / "index.html").write_text("<html>my own page</html>")
    r = _ri("reproduce", "slow", "--reports-dir", str(x), "--no-progress", cwd=repo)
    assert r.returncode == 2 and "not a report written by ri" in r.stderr
    (x / "slow/thesis.tex").unlink(); (x / "slow").rmdir()
    r = _ri("reproduce", "slow", "--reports-dir", str(x), "--no-progress", cwd=repo)
    assert r.returncode == 2 and "was not written by ri" in r.stderr
    assert (x / "index.html").read_text() == "<html>my own page</html>" and sorted(os.listdir(x)) == ["index.html"]


# --------------------------------------------------------------------- 9. the checkout the user stands in
def test_ri_works_on_the_checkout_you_stand_in(repo):
    "Probe 9: from a second checkout, `ri reproduce` writes that checkout's reports and its kernels import its library."
    shutil.copytree(ROOT / "reasoning_integrity", repo / "reasoning_integrity",
                    ignore=shutil.ignore_patterns("__pycache__"))
    _nb(repo / "nbs/experiments/where.ipynb",
        ('profile = "quick"\nreport_dir = "reports/where"', ["parameters"]),
        ('import pandas as pd, reasoning_integrity\nfrom reasoning_integrity.run.report import Report\nrep = Report(report_dir)\n'
         'rep.table(pd.DataFrame({"lib": [reasoning_integrity.__file__]}), "lib")\nrep.finish()', []))
    before = sorted(p.name for p in (ROOT / "reports").iterdir())
    r = _ri("reproduce", "where", "--no-progress", cwd=repo / "nbs")   # from inside the second checkout
    assert r.returncode == 0, r.stderr
    assert f"checkout {repo}" in r.stderr
    lib = (repo / "reports/where/tables/lib.csv").read_text()
    assert str(repo / "reasoning_integrity") in lib and str(ROOT) not in lib
    assert sorted(p.name for p in (ROOT / "reports").iterdir()) == before and not (ROOT / "reports/where").exists()


# ------------------------------------------------------------------------------------------ 10. leftovers
def test_profile_and_report_dir_are_not_silently_ignored(repo):
    for item, hint in (("profile=full", "--profile"), ("report_dir=/tmp/elsewhere", "--reports-dir")):
        r = _ri("reproduce", "slow", "-p", item, "--no-progress", cwd=repo)
        assert r.returncode == 2 and hint in r.stderr, r.stderr
    assert not (repo / "reports").exists()


def test_every_committed_report_is_a_complete_run():
    "No stray folder in reports/ or reports/full/ (the issue found reports/ok/, a test's output): each one is a complete, ok run."
    full = ROOT / "reports" / "full"                  # the full profile's reports (issue 27), held to the same rule
    dirs = [p for base in (ROOT / "reports", full) if base.is_dir() for p in base.iterdir()
            if p.is_dir() and not p.name.startswith(".") and p != full]
    assert dirs
    for d in sorted(dirs):
        rec = json.loads((d / "run.json").read_text())
        assert rec["name"] == d.name and rec["status"] == "ok", d
        assert rec["parameters"]["profile"] == ("full" if d.parent == full else "quick"), d
        for f in ["manifest.json", rec["executed_notebook"], *rec["tables"], *rec["figures"]]:
            assert (d / f).is_file(), f"{d.name}: {f} missing"
