"""The reproduction runner and the `ri` command end to end, on a throw-away repository with two tiny experiments.

`fails` raises in its second cell and runs first; `tiny` follows the experiment contract (tagged parameters cell,
profiles, `Report`) and must still run and be reported. Three kernel starts in all (a few seconds each).
"""
import hashlib
import json
import re
from pathlib import Path

import nbformat
import pandas as pd
import pytest

from reasoning_integrity.run import cli
from reasoning_integrity.run.runner import list_experiments, reproduce
from reasoning_integrity.run.report import Report

pytestmark = pytest.mark.timeout(180)


def _nb(path: Path, *cells):
    "Write a notebook from (source, tags) pairs."
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src, metadata={"tags": tags} if tags else {}) for src, tags in cells]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)


TINY_PARAMS = '''profile = "quick"  # quick or full
k = None  # rows of the table
offset = 0  # added to every value
llm = None  # LLM spec (unused here)
report_dir = "reports/tiny"'''

TINY_BODY = '''import pandas as pd
from reasoning_integrity.core.data import data_path
from reasoning_integrity.run.report import Report, resolve_params
PROFILES = {"quick": {"k": 2}, "full": {"k": 50}}
P = resolve_params(profile, PROFILES, globals())
rep = Report(report_dir)
rep.params(P)
assert data_path("tiny/facts.txt").read_text() == "abc"
rep.model("llm", "none:test")
rep.table(pd.DataFrame({"step": range(P["k"]), "value": [10 * i + offset for i in range(P["k"])]}), "values")
rep.finish()'''


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("repo")
    (root / "settings.ini").write_text("[DEFAULT]\n")
    _nb(root / "nbs/experiments/tiny.ipynb", (TINY_PARAMS, ["parameters"]), (TINY_BODY, []))
    (root / "data_dir/tiny").mkdir(parents=True)
    (root / "data_dir/tiny/facts.txt").write_text("abc")
    _nb(root / "nbs/experiments/fails.ipynb", ('profile = "quick"\nreport_dir = "reports/fails"', ["parameters"]),
        ('x = 1', []), ('raise RuntimeError("broken on purpose")', []))
    return root


@pytest.fixture(scope="module")
def run(repo):
    "One `reproduce` of both experiments, the failing one first; the kernels see `RI_DATA_DIR=<repo>/data_dir`."
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RI_DATA_DIR", str(repo / "data_dir"))
        res = reproduce(["fails", "tiny"], params={"offset": 7}, reports_dir=repo / "out", root=repo, progress=False)
    return res, repo / "out"


def test_list(repo):
    df = list_experiments(repo)
    assert sorted(df.name.unique()) == ["fails", "tiny"]
    tiny = df[df.name == "tiny"].set_index("parameter")
    assert tiny.loc["k", "help"] == "rows of the table"
    assert tiny.loc["offset", "default"] == 0
    assert (tiny.loc["k", "quick"], tiny.loc["k", "full"]) == (2, 50)


def test_failure_reported_and_next_runs(run):
    res, out = run
    assert list(res.name) == ["fails", "tiny"]
    assert list(res.status) == ["failed", "ok"]
    assert res.error[0] == "RuntimeError: broken on purpose"
    assert not (out / "fails").exists()  # a failed run makes no report (and replaces none)
    rec = json.loads((out / ".fails.failed/run.json").read_text())  # its output is kept aside
    assert rec["status"] == "failed"
    assert rec["error"]["ename"] == "RuntimeError" and rec["error"]["evalue"] == "broken on purpose"
    assert rec["ignored_parameters"] == ["offset"]  # `fails` does not declare it
    assert (out / ".fails.failed/fails.ipynb").exists()  # the executed notebook is kept, with the error in it


def test_tables_and_run_json(run):
    res, out = run
    d = out / "tiny"
    assert (d / "tables/values.csv").exists() and (d / "tables/values.md").exists()
    df = pd.read_csv(d / "tables/values.csv")
    assert df.value.tolist() == [7, 17]  # k=2 from the quick profile, offset=7 injected
    rec = json.loads((d / "run.json").read_text())
    for key in ("name", "notebook", "status", "error", "parameters", "versions", "git", "data", "models",
                "wall_s", "started_at", "finished_at", "tables", "figures"):
        assert key in rec, key
    assert rec["status"] == "ok" and rec["error"] is None
    assert rec["parameters"]["profile"] == "quick" and rec["parameters"]["offset"] == 7
    assert rec["parameters"]["k"] is None  # the notebook's own default; the profile fills it inside
    assert rec["injected"]["report_dir"] == "out/tiny"  # relative to the repository root
    assert rec["versions"]["pandas"] == pd.__version__
    assert set(rec["git"]) == {"commit", "dirty"}
    assert rec["models"] == {"llm": {"spec": "none:test"}}
    assert rec["tables"] == ["tables/values.csv"]
    assert rec["wall_s"] > 0
    assert rec["resolved_params"] == {"k": 2}  # from `rep.params(P)`
    # the data file the notebook read, with its sha256 (FIPS 180-2 test vector for "abc")
    assert [(f["rel"], f["bytes"], f["sha256"]) for f in rec["data"]] == [
        ("tiny/facts.txt", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")]
    assert hashlib.sha256(b"abc").hexdigest() == rec["data"][0]["sha256"]


def test_index_links(run):
    res, out = run
    page = (out / "index.html").read_text()
    hrefs = set(re.findall(r'href="([^"#]+)"', page))
    assert {"tiny/tiny.ipynb", "tiny/run.json", "tiny/tables/values.csv", "tiny/tables/values.md",
            ".fails.failed/fails.ipynb"} <= hrefs
    assert all((out / h).exists() for h in hrefs)  # every link resolves
    assert "<td>17</td>" in page  # the table's rows are shown
    assert "broken on purpose" in page


def test_cli_exit_code(repo, tmp_path, capsys):
    rc = cli.main(["reproduce", "fails", "--root", str(repo), "--reports-dir", str(tmp_path), "--no-progress"])
    assert rc == 1
    assert "RuntimeError: broken on purpose" in capsys.readouterr().out
    assert cli.main(["reproduce", "no_such", "--root", str(repo)]) == 2
    assert cli.main(["reproduce", "-p", "bad", "--root", str(repo)]) == 2


def test_cli_refuses_a_misspelt_or_mistyped_parameter_before_running(repo, tmp_path, capsys):
    "Issue 14: `-p lamda=0.5` used to exit 0 with the default; `-p lam=abc` failed inside the notebook."
    out = tmp_path / "never"
    assert cli.main(["reproduce", "tiny", "-p", "ofset=3", "--root", str(repo), "--reports-dir", str(out)]) == 2
    err = capsys.readouterr().err
    assert "unknown parameter 'ofset'" in err and "did you mean 'offset'?" in err
    assert cli.main(["reproduce", "tiny", "-p", "offset=abc", "--root", str(repo), "--reports-dir", str(out)]) == 2
    assert "offset='abc' (str) in tiny: expected int" in capsys.readouterr().err
    assert not out.exists()   # nothing ran, nothing was written


def test_credentials_in_a_url_never_reach_a_report(repo, tmp_path, capsys):
    "Issue 14: a key in `http://user:key@host` leaked into run.json, the manifest, the notebook, index.html and tables."
    out = tmp_path / "never"
    rc = cli.main(["reproduce", "tiny", "--llm", "openai-compatible:http://me:sk-TOPSECRET@127.0.0.1:9/v1#m",
                   "--root", str(repo), "--reports-dir", str(out)])
    err = capsys.readouterr().err
    assert rc == 2 and "credential" in err and "TOPSECRET" not in err
    assert not out.exists()


def test_notebook_run_from_jupyterlab_writes_to_the_repository_reports(tmp_path, monkeypatch):
    "Issue 16: run from nbs/experiments/, a notebook wrote into nbs/experiments/reports/…"
    (tmp_path / "settings.ini").write_text("[DEFAULT]\n")
    d = tmp_path / "nbs" / "experiments"; d.mkdir(parents=True)
    monkeypatch.chdir(d)
    assert Report("reports/x").dir == tmp_path.resolve() / "reports" / "x"


def test_data_found_beside_the_checkout_without_the_variable(tmp_path, monkeypatch):
    "Issue 16: JupyterLab without RI_DATA_DIR finds ../shared/data by the Makefile's rule."
    import reasoning_integrity.core.data as D
    (tmp_path / "shared" / "data").mkdir(parents=True); (tmp_path / "repo").mkdir()
    monkeypatch.delenv("RI_DATA_DIR", raising=False)
    monkeypatch.setattr(D, "REPO_ROOT", tmp_path / "repo")
    assert D.data_roots()[0] == tmp_path / "shared" / "data"
    monkeypatch.setenv("RI_DATA_DIR", str(tmp_path / "elsewhere"))
    assert D.data_roots()[0] == tmp_path / "elsewhere"
