"""The docs build's own checks that need no browser (the browser test is `make docs-test`)."""
import sys
from pathlib import Path
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs"))
import build  # noqa: E402


def test_index_notebook_holds_the_readme():
    "nbs/index.ipynb is the home page and nbdev's readme_nb: it must hold README.md's text, so neither says less."
    assert build.sync_index(check=True), "run `make docs-sync` after editing README.md"


def test_report_tables_state_their_row_count(tmp_path):
    df = pd.DataFrame({"x": range(7)})
    df.to_csv(tmp_path / "t.csv", index=False)
    html, n = build._table_html(tmp_path / "t.csv", max_rows=5)
    assert n == 7 and html.count("<tr") == 1 + 5          # header + the first 5 rows
    (tmp_path / "e.csv").write_text("")
    assert build._table_html(tmp_path / "e.csv", 5) == ("<p><em>empty table</em></p>", 0)


def test_directives_are_hidden_and_hidden_cells_dropped():
    import nbformat
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("#| export\ndef f(): pass"), nbformat.v4.new_code_cell("#| hide\nx = 1"),
                nbformat.v4.new_markdown_cell("$$a$$")]
    build._strip_directives(nb)
    assert [c.source for c in nb.cells] == ["def f(): pass", "$$a$$"]
    assert nb.metadata["language_info"]["name"] == "python"


# ------------------------------------------------------------------------------------------------ hostile reports
# Every value a report page shows comes from the run (run.json, the manifest, file names, table notes and cells): a
# model's text, or the model id an endpoint returns, can put anything there. The page must show it as text only.
import html as _html
import importlib.util
import json
import re
import subprocess
from html.parser import HTMLParser

import pytest

SECRET = "TOPSECRET-7f3a"        # in a file next to the pages: a page that shows it has included a file
H = ('<script>alert("ri-xss")</script><img src=x onerror=alert(2)> `tick` ``code`` $x$ | a | b |\n'
     '```\n```{raw} html\n<script>alert(3)</script>\n```\n```{include} /secret.txt\n```\n'
     '```{raw} html\n:file: /secret.txt\n```\n:::{raw} html\n<b>x</b>\n:::\n{eval-rst}`.. raw:: html` '
     '[x](javascript:alert(4)) <a href="javascript:alert(5)">a</a> <javascript:alert(6)> &lt;b&gt;')
FN = 'x<img src=y onerror=alert(7)>`[z](javascript:alert(8))`\n```{raw} html\n'   # a file name: no "/"
SHOWN = "&lt;script&gt;alert("                                                       # H's opening, escaped


def _stage(monkeypatch, tmp_path):
    "report_pages on tmp_path/reports into tmp_path/src (ROOT and SRC patched, as the build's defaults are read there)."
    monkeypatch.setattr(build, "ROOT", tmp_path); monkeypatch.setattr(build, "SRC", tmp_path / "src")
    return build.report_pages(50)


def _hostile_report(reports, name="hostile", records=()):
    "A report folder in which every value the page shows is H (file names FN), with the given record lines."
    d = reports / name
    for sub in ("tables", "figures", "records"): (d / sub).mkdir(parents=True, exist_ok=True)
    run = {"status": H, "parameters": {"profile": H}, "resolved_params": {"profile": H, H: H, "n": 3}, "wall_s": H,
           "finished_at": H, "git": {"commit": H}, "error": {"ename": H, "evalue": H}, "notes": [H, "a `code` note"],
           "models": {H: {"spec": H, "detail": H}},
           "llm_calls": [{"label": f"openai-compatible:http://h/v1#{H}", "calls": H, "cached": H, "live": H, "failed": H, "live_s": H}],
           "data": [{"rel": H, "bytes": H, "sha256": H}], "versions": {H: H}}
    (d / "run.json").write_text(json.dumps(run))
    (d / "manifest.json").write_text("{}")
    pd.DataFrame({H: [H, 1]}).to_csv(d / "tables" / f"t{FN}.csv", index=False)
    (d / "tables" / f"t{FN}.md").write_text(H + "\n\n| a |\n|---|\n| 1 |\n")
    from PIL import Image
    Image.new("RGB", (4, 4), "white").save(d / "figures" / f"f{FN}.png")
    if records: (d / "records" / "items.jsonl").write_bytes(b"\n".join(records) + b"\n")
    return d


class _Tags(HTMLParser):
    "Every start tag with its attributes, and the text of inline scripts."
    def __init__(self):
        super().__init__(convert_charrefs=True); self.tags, self.scripts, self._in = [], [], False
    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs))); self._in = tag == "script" and not dict(attrs).get("src")
    def handle_endtag(self, tag): self._in = False
    def handle_data(self, data):
        if self._in: self.scripts.append(data)


def _tags(text):
    p = _Tags(); p.feed(text); p.close(); return p


def _assert_markdown_is_text_only(md):
    "The page, parsed as MyST parses it: values are text; raw HTML only in our `{raw} html` blocks, and that is inert."
    from markdown_it import MarkdownIt
    from mdit_py_plugins.colon_fence import colon_fence_plugin
    from mdit_py_plugins.dollarmath import dollarmath_plugin
    from mdit_py_plugins.myst_blocks import myst_block_plugin
    from mdit_py_plugins.myst_role import myst_role_plugin
    mdi = (MarkdownIt("commonmark").enable("table").use(colon_fence_plugin).use(dollarmath_plugin)
           .use(myst_role_plugin).use(myst_block_plugin))
    toks = mdi.parse(md)
    flat = toks + [c for t in toks for c in (t.children or [])]
    kinds = {t.type for t in flat}
    assert not kinds & {"html_block", "html_inline", "code_inline", "code_block", "colon_fence", "math_inline",
                        "math_block", "myst_role", "myst_target", "myst_line_comment", "myst_block_break", "autolink"}, kinds
    fences = [t for t in toks if t.type == "fence"]
    assert {t.info for t in fences} <= {"{raw} html", "{toctree}"}, {t.info for t in fences}
    hrefs = {t.attrs.get("href") for t in flat if t.type == "link_open"}
    assert hrefs <= {"notebook.ipynb"}, hrefs
    for t in flat:
        if t.type == "image": assert re.fullmatch(r"figures/[A-Za-z0-9_.-]+\.png", t.attrs["src"]), t.attrs
    for t in fences:
        if t.info != "{raw} html": continue
        assert "`" not in t.content
        p = _tags(t.content)
        assert {tag for tag, _ in p.tags} <= {"p", "strong", "em", "code", "pre", "div", "ul", "li", "table", "thead",
                                              "tbody", "tr", "th", "td", "a", "span", "details", "summary"}, {tag for tag, _ in p.tags}
        for tag, attrs in p.tags:
            assert set(attrs) <= {"class", "border", "style", "href"}, (tag, attrs)
            if "href" in attrs: assert re.fullmatch(r"tables/[A-Za-z0-9_.-]+\.csv|explorer\.html", attrs["href"]), attrs
    return fences


def test_report_page_shows_a_hostile_run_record_as_text(tmp_path, monkeypatch):
    "A run whose every value is markup (script, img onerror, backticks, a fence, directives, javascript: links)."
    reports, src = tmp_path / "reports", tmp_path / "src"
    _hostile_report(reports)
    _hostile_report(reports, name=FN)            # the folder's name too (a title and a path)
    pages = _stage(monkeypatch, tmp_path)
    assert len(pages) == 2
    for page in sorted(pages):   # reports/hostile first
        md = (src / f"{page}.md").read_text()
        fences = _assert_markdown_is_text_only(md)
        assert len([f for f in fences if f.info == "{raw} html"]) >= 9
        assert md.count(SHOWN) >= 20                      # ... and every value is still there, as text
        assert "openai-compatible:http://h/v1#" + SHOWN in md and "<code>code</code> note" in md
        assert SECRET not in md
    assert all(re.fullmatch(r"reports/[A-Za-z0-9_.-]+/index", p) for p in pages), pages
    assert md.splitlines()[0].startswith("# x\\<img src\\=y onerror\\=alert\\(7\\)\\>\\`\\[z\\]")
    staged = sorted(p.relative_to(src).as_posix() for p in src.rglob("*") if p.is_file())
    assert all(re.fullmatch(r"[A-Za-z0-9_./-]+", p) for p in staged), staged   # every staged file has a safe name


def test_report_page_survives_a_malformed_run_record(tmp_path, monkeypatch):
    "run.json that is not JSON, not an object, nested too deep, or of the wrong shapes: a page that says so, no crash."
    reports = tmp_path / "reports"
    cases = {"notjson": "{oops", "list": "[1, 2]", "deep": "[" * 5000 + "]" * 5000,
             "shapes": json.dumps({"status": 1, "error": "boom", "git": "x", "parameters": [1], "resolved_params": "p",
                                   "models": {"m": "spec"}, "llm_calls": [1, "x", {"label": 5}], "data": "y",
                                   "notes": "one note", "versions": [1], "wall_s": {"a": [1]}})}
    for name, text in cases.items():
        (reports / name).mkdir(parents=True); (reports / name / "run.json").write_text(text)
    _stage(monkeypatch, tmp_path)
    page = lambda n: (tmp_path / "src" / "reports" / n / "index.md").read_text()
    assert "run.json could not be read" in page("notjson") and "holds a list, not an object" in page("list")
    assert "nests deeper than" in page("deep")
    s = page("shapes")
    assert "boom" in s and "one note" in s and "<code>spec</code>" in s and "<code>5</code>" in s
    _assert_markdown_is_text_only(s)


BAD_RECORDS = [b'{"id":"a","title":5}', b'{"id":"b","fields":[1,2]}', b'{"id":"c","step_signals":[1]}',
               b'{"id":"d","raw":' + b"[" * 900 + b"]" * 900 + b"}", b'{"id":"e","raw":"' + b"x" * 5_000_000 + b'"}',
               b'{"id":"f","correct":[1]}']


def test_report_page_counts_malformed_records(tmp_path, monkeypatch):
    "The records that used to stop the docs build: skipped, counted on the report page and on its explorer page."
    reports, src = tmp_path / "reports", tmp_path / "src"
    good = json.dumps({"id": "ok", "title": H, "steps": [H], "raw": H}).encode()
    _hostile_report(reports, records=[good, *BAD_RECORDS])
    (page,) = _stage(monkeypatch, tmp_path)
    md = (src / f"{page}.md").read_text()
    assert f"Look inside each of its 1 items" in md and f"{len(BAD_RECORDS)} malformed records skipped" in md
    _assert_markdown_is_text_only(md)
    explorer = (src / "_extra" / "reports" / "hostile" / "explorer.html").read_text()
    assert f"{len(BAD_RECORDS)} malformed records skipped" in explorer and explorer.count('<section id="item-') == 1
    p = _tags(explorer)
    tags = p.tags
    assert {t for t, _ in tags} <= {"html", "head", "meta", "link", "title", "style", "body", "nav", "b", "a", "main", "p", "section",
                                    "div", "h3", "h4", "dl", "dt", "dd", "table", "tr", "th", "td", "details", "summary", "pre",
                                    "script", "input", "figure", "img", "figcaption"}
    assert not [a for _, a in tags for k in a if k.startswith("on")] and '<script>alert("ri-xss")' not in explorer
    # the explorer's own scripts only: MathJax's configuration, the site's MathJax.js, the filter box
    assert [a.get("src") for t, a in tags if t == "script"] == [None, "../../_static/mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full", None]
    assert len(p.scripts) == 2 and not [s for s in p.scripts if "alert" in s or "ri-xss" in s]
    assert [a["src"] for t, a in tags if t == "img"] == ["figures/f" + build._slug(FN) + ".png"]   # the figure copied beside it
    assert (src / "_extra" / "reports" / "hostile" / "figures" / ("f" + build._slug(FN) + ".png")).is_file()


@pytest.mark.timeout(120)
@pytest.mark.skipif(importlib.util.find_spec("myst_nb") is None or importlib.util.find_spec("sphinx") is None,
                    reason="the docs extras (sphinx, myst-nb) are not installed here: `pip install -e .[docs]` (make docs does)")
def test_hostile_report_page_renders_without_markup(tmp_path, monkeypatch):
    "The staged page through Sphinx and MyST-NB (the site's parser settings): no tag, handler or link of the run's."
    reports, src = tmp_path / "reports", tmp_path / "src"
    good = json.dumps({"id": "ok", "title": H, "steps": [H], "raw": H}).encode()
    _hostile_report(reports, records=[good])
    pages = _stage(monkeypatch, tmp_path)
    (src / "secret.txt").write_text(SECRET)
    (src / "index.md").write_text("# site\n\n" + build._toc("Reports", pages))
    (src / "conf.py").write_text(
        'extensions = ["myst_nb"]\nmyst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]\n'
        'nb_execution_mode = "off"\nhtml_extra_path = ["_extra"]\nexclude_patterns = ["_build"]\n')
    r = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", str(src), str(tmp_path / "out")],
                       capture_output=True, text=True, timeout=110)
    assert r.returncode == 0, r.stderr[-3000:]
    out = (tmp_path / "out" / "reports" / "hostile" / "index.html").read_text()
    p = _tags(out)
    assert not [s for s in p.scripts if "alert" in s]                             # no script of the run's
    assert not [(t, a) for t, a in p.tags for k in a if k.startswith("on")]      # no event handler
    assert not [a for _, a in p.tags for k, v in a.items() if k in ("href", "src") and v and "javascript:" in v.lower()]
    assert all(a.get("src", "").startswith("../../_images/") for t, a in p.tags if t == "img"), [a for t, a in p.tags if t == "img"]
    assert SECRET not in out and "<b>x</b>" not in out
    assert out.count(SHOWN) >= 20
    assert '<a href="explorer.html">item explorer</a>' in out    # a link to the file, not to a missing page


# ---------------------------------------------------------------------------------------------- findings first (issue 40)
# A full-profile report's page opens with what it found (computed from its tables by its experiment's FINDINGS
# function), then its notes, folded. A constructed metric_validity report (two datasets, two baselines, three signals,
# one with a hostile name) and an experiment notebook that names the findings function stand in for the real ones.
import nbformat

BAD = '<img src=x onerror=alert(9)>'


def _validity_report(d):
    "A metric_validity report folder with the tables `signals.report.findings` reads, and three notes."
    t = d / "tables"; t.mkdir(parents=True); (d / "figures").mkdir()
    row = lambda s, ds, v, lo, hi, n, npos, g=None, glo=None, ghi=None: dict(
        signal=s, dataset=ds, level="chain", metric="auroc", value=v, ci_low=lo, ci_high=hi, n=n, n_pos=npos,
        base_auroc=0.69, incremental_gain=g, gain_ci_low=glo, gain_ci_high=ghi)
    pd.DataFrame([row("length", "pb", 0.68, 0.66, 0.70, 100, 60, 0, 0, 0), row("position", "pb", 0.58, 0.55, 0.61, 100, 60, 0, 0, 0),
                  row("combined", "pb", 0.76, 0.74, 0.78, 100, 60, 0.07, 0.05, 0.09),
                  row(BAD, "pb", 0.59, 0.57, 0.61, 80, 50, 0.06, 0.04, 0.08), row("drift", "pb", 0.55, 0.52, 0.58, 100, 60, -0.001, -0.01, 0.008),
                  row("position", "sq", 0.61, 0.42, 0.79, 79, 10, 0, 0, 0), row("drift", "sq", 0.61, 0.39, 0.82, 79, 10, -0.05, -0.2, 0.04)]
                 ).to_csv(t / "signal_validity.csv", index=False)
    pd.DataFrame(dict(signal=["combined", BAD, "drift", "drift"], dataset=["pb", "pb", "pb", "sq"], level="chain",
                      best_baseline=["length"] * 3 + ["position"], auroc=[0.76, 0.59, 0.55, 0.61], baseline_auroc=[0.68] * 3 + [0.61],
                      beats=[True, False, False, False], gain_p_adj=[0.01, 0.01, 0.9, 0.8], beats_length=[True, True, False, False])
                 ).to_csv(t / "baseline_comparison.csv", index=False)
    pd.DataFrame(dict(signal=["length", "position"], family="baseline")).to_csv(t / "signals.csv", index=False)
    (d / "run.json").write_text(json.dumps({"status": "ok", "parameters": {"profile": "full"}, "notes": ["one", "two `x`", H]}))
    return d


def _experiment(root, name="metric_validity", findings=True):
    "nbs/experiments/<name>.ipynb under `root`, naming a headline table and (with `findings`) the findings function."
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell('HEADLINE = "baseline_comparison"\n'
                                          + ('FINDINGS = "reasoning_integrity.signals.report:findings"' if findings else ""))]
    (root / "nbs" / "experiments").mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, root / "nbs" / "experiments" / f"{name}.ipynb")


def test_findings_from_constructed_tables(tmp_path):
    "Five lines, every number from the tables; the figure has one block (two panels) per dataset."
    import matplotlib; matplotlib.use("Agg")
    from reasoning_integrity.signals.report import findings
    lines, fig = findings(_validity_report(tmp_path / "metric_validity"))
    assert len(lines) == 5
    assert lines[0].endswith("pb chains 2 of 3 signals; sq chains 0 of 1 signals.")
    assert lines[1] == "Largest gain that holds: pb chains `combined` +0.070 [+0.050, +0.090] (AUROC 0.760 [0.740, 0.780])."
    assert "pb chains length 0.680 [0.660, 0.700]; sq chains position 0.610 [0.420, 0.790]" in lines[2]
    assert lines[3] == "The learned `combined` (out of fold): pb chains AUROC 0.760 [0.740, 0.780], gain +0.070 [+0.050, +0.090]."
    assert lines[4] == "Labelled: pb chains 100 (60 wrong); sq chains 79 (10 wrong)."   # no coverage.csv: no sample line
    assert len(fig.axes) == 4 and [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["drift", BAD + " (n=80)", "combined"]


def _stage_full(monkeypatch, tmp_path):
    "The constructed report staged as a full-profile page (and as a quick one), with ROOT and SRC in tmp_path."
    _validity_report(tmp_path / "reports" / "full" / "metric_validity")
    _validity_report(tmp_path / "reports" / "metric_validity")
    _experiment(tmp_path)
    monkeypatch.setattr(build, "ROOT", tmp_path); monkeypatch.setattr(build, "SRC", tmp_path / "src")
    full = build.report_pages(50, tmp_path / "reports" / "full", prefix="reports/full", kind="full")
    quick = build.report_pages(50)
    return full + quick


def test_full_report_page_opens_with_findings_and_folds_notes(tmp_path, monkeypatch):
    "Findings (lines, then the figure) before the notes; the notes in a closed <details>; on a quick page too; all text escaped."
    full, quick = _stage_full(monkeypatch, tmp_path)
    md = (tmp_path / "src" / f"{full}.md").read_text()
    _assert_markdown_is_text_only(md)
    at = {h: md.index(h) for h in ("## Findings", "## Notes", "## Figures", "## Tables")} if "## Figures" in md else \
         {h: md.index(h) for h in ("## Findings", "## Notes", "## Tables")}
    assert list(at) == sorted(at, key=at.get), at                         # findings, notes, (figures,) tables
    findings = md[at["## Findings"]:at["## Notes"]]
    assert "<strong>Largest gain that holds</strong>: pb chains <code>combined</code> +0.070" in findings
    assert "![the findings in one figure](figures/findings.png)" in findings
    assert (tmp_path / "src" / full).parent.joinpath("figures", "findings.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert BAD not in md and _html.escape(BAD) in md                      # a signal's name is text on the page
    notes = md[at["## Notes"]:]
    p = _tags(notes.split("```{raw} html\n", 1)[1].split("\n```", 1)[0])
    assert [t for t, _ in p.tags][:3] == ["details", "summary", "ul"] and "open" not in p.tags[0][1]
    assert "3 notes on how these numbers were made" in notes and "two <code>x</code>" in notes and SHOWN in notes
    qmd = (tmp_path / "src" / f"{quick}.md").read_text()
    assert "## Findings" not in qmd and '<details class="ri-notes">' in qmd   # a pipeline check: no findings, notes folded


def test_findings_lines_lead_in_bold():
    "The words before a line's first colon outside brackets are its lead; a line without one is all plain; all escaped."
    assert build._lead("GPT-3 on ScienceQA, test (file: a/b): 3 of 4") == "<strong>GPT-3 on ScienceQA, test (file: a/b)</strong>: 3 of 4"
    assert build._lead("Largest: `a: b` <i>") == "<strong>Largest</strong>: <code>a: b</code> &lt;i&gt;"
    assert build._lead("no lead here") == "no lead here" and build._lead("x" * 120 + ": y") == "x" * 120 + ": y"


def test_full_report_page_without_findings_opens_with_its_headline_table(tmp_path, monkeypatch):
    "An experiment that names no findings function: its full report's page opens with the first rows of its headline table."
    _validity_report(tmp_path / "reports" / "full" / "plain")
    _experiment(tmp_path, "plain", findings=False)
    monkeypatch.setattr(build, "ROOT", tmp_path); monkeypatch.setattr(build, "SRC", tmp_path / "src")
    (page,) = build.report_pages(50, tmp_path / "reports" / "full", prefix="reports/full", kind="full")
    md = (tmp_path / "src" / f"{page}.md").read_text()
    _assert_markdown_is_text_only(md)
    head = md[md.index("## Findings"):md.index("## Notes")]
    assert "Headline table: baseline_comparison, all 4 rows (tables/baseline_comparison.csv)" in head
    assert head.count("<tr") == 1 + 4 and _html.escape(BAD) in head and BAD not in head


def test_full_report_page_without_an_experiment_says_so(tmp_path, monkeypatch):
    "A full report whose experiment notebook is not there still opens with a Findings section, which says so."
    _validity_report(tmp_path / "reports" / "full" / "orphan")
    monkeypatch.setattr(build, "ROOT", tmp_path); monkeypatch.setattr(build, "SRC", tmp_path / "src")
    (page,) = build.report_pages(50, tmp_path / "reports" / "full", prefix="reports/full", kind="full")
    md = (tmp_path / "src" / f"{page}.md").read_text()
    assert md.index("## Findings") < md.index("## Notes") and "No experiment notebook declares what this report found" in md


@pytest.mark.timeout(120)
@pytest.mark.skipif(importlib.util.find_spec("myst_nb") is None or importlib.util.find_spec("sphinx") is None,
                    reason="the docs extras (sphinx, myst-nb) are not installed here: `pip install -e .[docs]` (make docs does)")
def test_full_report_page_renders_findings_first(tmp_path, monkeypatch):
    "Through Sphinx: the Findings section, with its figure, comes before the Notes section, whose list is in a closed <details>."
    full, quick = _stage_full(monkeypatch, tmp_path)
    src = tmp_path / "src"
    (src / "index.md").write_text("# site\n\n" + build._toc("Reports", [full, quick]))
    (src / "conf.py").write_text('extensions = ["myst_nb"]\nmyst_enable_extensions = ["colon_fence"]\nmyst_heading_anchors = 3\n'
                                 'nb_execution_mode = "off"\nhtml_extra_path = ["_extra"]\nexclude_patterns = ["_build"]\n')
    r = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", str(src), str(tmp_path / "out")],
                       capture_output=True, text=True, timeout=110)
    assert r.returncode == 0, r.stderr[-3000:]
    out = (tmp_path / "out" / f"{full}.html").read_text()
    f, n = out.index('<section id="findings">'), out.index('<section id="notes">')
    assert f < n and out.index("findings.png", f) < n and out.index("Largest gain that holds", f) < n
    details = out[n:].split("<details", 1)[1].split("</details>", 1)[0]
    assert details.split(">", 1)[0] == ' class="ri-notes"'                   # not `open`
    assert "<summary>3 notes" in details and "<li>one</li>" in details
