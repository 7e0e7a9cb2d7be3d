"""`ri reproduce --limit N` caps the total number of items an experiment scores, spread evenly over its groups, on the
project's real experiments (the two logged-data ones, no model calls), and `run.json` records what N counted; then the
command ends with each experiment's headline table and report path."""
import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pandas as pd
import pytest

from reasoning_integrity.run.cli import main
from reasoning_integrity.lines.ptp.bbh import BBH_TASKS, PTP_TASKS

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.timeout(600)


def _ri(*argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err): rc = main(list(argv))
    return rc, out.getvalue(), err.getvalue()


def test_limit_is_a_total_spread_over_subsets(tmp_path):
    groups = 2 * len(BBH_TASKS)                        # every task file, in both prompting modes
    n = 3 * groups + 5                                  # 3 per group; 5 left over so that every group has the same count
    rc, out, err = _ri("reproduce", "bbh_codex", "ptp_logged", "--root", str(ROOT), "--reports-dir", str(tmp_path),
                       "--limit", str(n), "--no-progress")
    assert rc == 0, err
    acc = pd.read_csv(tmp_path / "bbh_codex/tables/accuracy.csv")
    assert len(acc) == groups and set(acc.n) == {3} and acc.n.sum() == 3 * groups <= n
    lim = json.loads((tmp_path / "bbh_codex/run.json").read_text())["limit"]
    assert (lim["value"], lim["total"], lim["per_group"], lim["groups"]) == (n, 3 * groups, 3, {"n_per_task": groups})
    assert lim["note"] == "5 of N left unused, so that every group has the same count"
    assert lim["counted"] == {"n_per_task": "the first N examples of each task file and mode (0: all)"}
    # PTP: 23 tune logs and the 5 PTP test logs; N = 28 * 4 + 6 gives 4 traces per log
    plim = json.loads((tmp_path / "ptp_logged/run.json").read_text())["limit"]
    assert plim["groups"] == {"n_per_task": len(PTP_TASKS) + 5} and plim["per_group"] == n // (len(PTP_TASKS) + 5)
    ent = pd.read_csv(tmp_path / "ptp_logged/tables/trace_entropy.csv")
    assert len(ent) == len(PTP_TASKS) + 5 and set(ent.n_traces) == {plim["per_group"]} and ent.n_traces.sum() <= n
    # it ends with each experiment's headline table and where its report is
    assert f"== bbh_codex: accuracy, the first 10 of {groups} rows (tables/accuracy.csv)" in out
    assert f"report: {tmp_path / 'bbh_codex'}" in out and f"report: {tmp_path / 'ptp_logged'}" in out
    assert "== ptp_logged: wellformedness_vs_paper, all 4 rows (tables/wellformedness_vs_paper.csv)" in out
    lines = [l for l in out.splitlines() if not l.startswith(("report: ", "2 ok, 0 failed; index: "))]   # paths aside
    assert max(map(len, lines)) <= 100, max(lines, key=len)
