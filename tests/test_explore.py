"""The item explorer over the committed reports: every experiment writes per-item records, the JupyterLab explorer
(driven headlessly through its widget values) and the static page open every item, and what an item says agrees
with the report's own tables."""
import filecmp
import html
import json
from pathlib import Path

import pandas as pd
import pytest

from reasoning_integrity.run.explore import Explorer, available_reports, item_html, load_items, report_html
from reasoning_integrity.run.params import experiment_paths
from reasoning_integrity.run.runner import reproduce

ROOT = Path(__file__).resolve().parents[1]
NAMES = sorted(experiment_paths(ROOT))


def test_every_experiment_writes_records():
    assert len(NAMES) >= 10
    assert available_reports(ROOT / "reports") == [n for n in NAMES if n in available_reports(ROOT / "reports")]
    missing = [n for n in NAMES if n not in available_reports(ROOT / "reports")]
    assert not missing, f"experiments without per-item records: {missing}"


@pytest.mark.parametrize("name", NAMES)
def test_explorer_opens_every_item(name):
    items, problems = load_items(ROOT / "reports" / name)
    assert items and not problems, problems[:3]
    ex = Explorer(name, reports_dir=ROOT / "reports")
    assert [v for _, v in ex.items.options] == [it["id"] for it in items]
    for it in items:
        view = ex.show(it["id"])
        assert html.escape(it.get("title") or it["id"]) in view
        if it.get("steps"): assert html.escape(str(it["steps"][0])) in view      # its first step is on screen
        if it.get("matrices"): assert 'class="ri-matrix"' in view
        if it.get("parse_problems"): assert "parse problems" in view
    page = report_html(name, reports_dir=ROOT / "reports")
    assert page.count('<section id="item-') == len(items)
    assert page.count('<section id="figures"') == (1 if any((ROOT / "reports" / name / "figures").glob("*.png")) else 0)


def test_scenario_items_agree_with_the_table():
    items = {it["id"]: it for it in load_items(ROOT / "reports/trajectory_scenarios")[0]}
    tab = pd.read_csv(ROOT / "reports/trajectory_scenarios/tables/scenarios.csv").set_index("scenario")
    assert set(items) == set(tab.index)
    for name, it in items.items():
        assert it["fields"]["D"] == pytest.approx(tab.D[name], rel=1e-9)
        m = next(iter(it["matrices"].values()))
        # D is the sum of δ along the path drawn on the matrix
        assert sum(m["values"][i][j] for i, j in m["path"]) == pytest.approx(tab.D[name], rel=1e-6)
        assert len(it["steps"]) == len(m["values"])


@pytest.mark.timeout(300)
def test_rerun_is_byte_identical(tmp_path):
    "`ri reproduce trajectory_scenarios` twice: every table and the records file byte-identical."
    outs = []
    for k in range(2):
        res = reproduce(["trajectory_scenarios"], reports_dir=tmp_path / f"r{k}", root=ROOT, progress=False)
        assert list(res.status) == ["ok"], res.error.tolist()
        outs.append(tmp_path / f"r{k}" / "trajectory_scenarios")
    files = sorted(p.relative_to(outs[0]) for p in outs[0].rglob("*") if p.suffix in (".csv", ".jsonl"))
    assert len(files) >= 5
    for f in files: assert filecmp.cmp(outs[0] / f, outs[1] / f, shallow=False), f


# ------------------------------------------------------------------ the static page: math, figures, filter; `serve`
import http.client
import importlib.util
import re
import runpy
from html.parser import HTMLParser
from urllib.parse import quote

from reasoning_integrity.run.explore import MATHJAX_CONFIG, MATHJAX_QUERY, local_mathjax, serve, write_html
from reasoning_integrity.run.report import Report

PB = ROOT / "reports" / "processbench"
MJ_URL = "../../_static/mathjax/MathJax.js" + MATHJAX_QUERY
HOSTILE = r"\(\href{javascript:alert(1)}{x}\) <script>alert(1)</script> \(\style{color:red}{y}\)"


class _Page(HTMLParser):
    "Start tags with attributes, and the text of each inline script."
    def __init__(self, text):
        super().__init__(convert_charrefs=True); self.tags, self.scripts, self._in = [], [], False
        self.feed(text); self.close()
    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs))); self._in = tag == "script" and not dict(attrs).get("src")
    def handle_endtag(self, tag): self._in = False
    def handle_data(self, data):
        if self._in: self.scripts.append(data)


def _toy(tmp_path, figure="plot.png"):
    "A report folder with a step of math, a hostile step, an item with a long step, and one figure named `figure`."
    from PIL import Image
    r = Report(tmp_path / "toy")
    r.items([dict(id="m1", title="sum", question="What is $2+3$?", correct=True, steps=[r"so \(2+3=5\) and \[5<6\]", HOSTILE]),
             dict(id="m2", title='"><img src=x onerror=alert(2)>', steps=["long step " * 400]),
             dict(id="m3", title="third", steps=["plain"])])
    r.finish()
    Image.new("RGB", (6, 4), "white").save(tmp_path / "toy" / "figures" / figure)   # after finish (it keeps only its own figures)
    return tmp_path / "toy"


def _config(page):
    "The MathJax configuration a page passes to MathJax.Hub.Config."
    (cfg,) = [s for s in _Page(page).scripts if s.startswith("MathJax.Hub.Config(")]
    return json.loads(cfg[len("MathJax.Hub.Config("):-2])


def test_page_with_mathjax_keeps_math_as_escaped_text_and_configures_safe_mode():
    items, _ = load_items(PB)
    steps = [s for it in items for s in it["steps"] if "\\(" in s]
    step = next((s for s in steps if set(s) & set("<>&'\"")), steps[0])     # one that escaping changes, if there is one
    assert len(steps) > 10
    page = report_html(PB, mathjax=MJ_URL)
    assert f'<td class="ri-tex">{html.escape(step)}</td>' in page       # the delimiters as the model wrote them
    assert f'<script src="{html.escape(MJ_URL)}"></script>' in page and '<body class="ri-notex">' in page
    cfg = _config(page)
    assert cfg == MATHJAX_CONFIG
    assert "Safe.js" in cfg["extensions"] and cfg["skipStartupTypeset"] is True
    assert cfg["Safe"]["allow"] == {"URLs": "none", "classes": "none", "cssIDs": "none", "styles": "none", "require": "none",
                                    "fontsize": "safe"}
    assert (cfg["tex2jax"]["processClass"], cfg["tex2jax"]["ignoreClass"]) == ("ri-tex", "ri-notex")
    secs = re.findall(r'<section id="item-\d+"([^>]*)>', page)
    assert len(secs) == len(items) and set(secs) == {' class="ri-notex"'}  # MathJax skips everything but the ri-tex cells
    assert "math is shown as TeX source" not in page


@pytest.mark.skipif(importlib.util.find_spec("jupyter_server_mathjax") is None, reason="the docs extra is not installed")
def test_mathjax_config_uses_the_docs_sites_delimiters_and_fonts():
    site = runpy.run_path(str(ROOT / "docs" / "conf.py"))["mathjax2_config"]
    for k in ("inlineMath", "displayMath", "processRefs", "processEnvironments"):
        assert MATHJAX_CONFIG["tex2jax"][k] == site["tex2jax"][k], k
    for k in ("jax", "HTML-CSS", "SVG", "messageStyle", "showMathMenu"): assert MATHJAX_CONFIG[k] == site[k], k
    mj = local_mathjax()
    assert mj is not None and mj.name == "MathJax.js" and (mj.parent / "extensions" / "Safe.js").is_file()
    assert runpy.run_path(str(ROOT / "docs" / "conf.py"))["_MJ"] == mj.parent      # the very copy the site ships


def test_page_without_mathjax_says_math_is_tex_source():
    page = report_html(PB)
    assert "math is shown as TeX source" in page and "x-mathjax-config" not in page and "MathJax.js" not in page
    assert [a.get("src") for t, a in _Page(page).tags if t == "script"] == [None]   # the filter's script only


def test_hostile_step_stays_text(tmp_path):
    d = _toy(tmp_path)
    page = report_html(d, mathjax=MJ_URL)
    assert html.escape(HOSTILE) in page and "<script>alert" not in page and "<img src=x" not in page
    p = _Page(page)
    assert [a.get("src") for t, a in p.tags if t == "script"] == [None, MJ_URL, None]
    assert not [s for s in p.scripts if "alert" in s]
    assert not [a for _, a in p.tags for k, v in a.items() if k.startswith("on") or k in ("href", "src") and "javascript:" in v]
    assert [a["src"] for t, a in p.tags if t == "img"] == ["figures/plot.png"]


def test_figures_listed_and_linked():
    figs = sorted(f.name for f in (PB / "figures").glob("*.png"))
    assert len(figs) == 2
    page = report_html(PB)
    assert f'<a href="#figures" class="ri-figures">figures ({len(figs)})</a>' in page
    imgs = [a for t, a in _Page(page).tags if t == "img"]
    assert [a["src"] for a in imgs] == [f"figures/{n}" for n in figs]
    assert [a["alt"] for a in imgs] == [n[:-4] for n in figs] and {a["loading"] for a in imgs} == {"lazy"}
    assert all((PB / a["src"]).is_file() for a in imgs)                      # relative to explorer.html in the report
    assert page.index('<section id="figures"') > page.rindex('<section id="item-')   # the first item stays the default
    assert "<img" not in report_html(PB, figures=False)


def test_awkward_figure_name_is_escaped_and_quoted(tmp_path):
    name = 'a "b" <c>&d.png'
    d = _toy(tmp_path, name)
    page = report_html(d)
    assert f'<img src="figures/{quote(name)}" alt="a &quot;b&quot; &lt;c&gt;&amp;d" loading="lazy">' in page
    out = write_html(d, out=tmp_path / "elsewhere" / "e.html", mathjax=None)   # linked back to the report's folder
    (src,) = [a["src"] for t, a in _Page(out.read_text()).tags if t == "img"]
    assert src == "../toy/figures/" + quote(name) and (out.parent / "../toy/figures" / name).is_file()


def test_filter_texts_are_escaped_lowercased_and_capped(tmp_path):
    d = _toy(tmp_path)
    page = report_html(d)
    raw = re.findall(r'data-text="([^"]*)"', page)
    assert len(raw) == 3 and not [t for t in raw if "<" in t or ">" in t]
    texts = [a["data-text"] for t, a in _Page(page).tags if t == "a" and "data-text" in a]
    assert texts[0] == "✓ sum m1 what is $2+3$? so \\(2+3=5\\) and \\[5<6\\] " + HOSTILE.lower()
    assert texts[1].startswith('"><img src=x onerror=alert(2)> m2 long step') and len(texts[1]) == 2000
    assert texts[2] == "third m3 plain"
    assert '<input type="search" id="ri-filter"' in page and '<div class="ri-count" id="ri-count">3 of 3 items</div>' in page
    assert page.count('href="#item-') == 3                                 # every item has its link, the figures one has none
    assert 'href="#figures" class="ri-figures"' in page and 'href="#figures" data-text' not in page


def test_write_html_loads_this_machines_mathjax_by_default(tmp_path):
    d = _toy(tmp_path)
    page = write_html(d).read_text(encoding="utf-8")
    mj = local_mathjax()
    if mj is None: assert "math is shown as TeX source" in page
    else: assert f'<script src="{mj.as_uri()}{MATHJAX_QUERY}"></script>' in page
    assert "x-mathjax-config" not in write_html(d, mathjax=None).read_text()


def _get(srv, path, method="GET", host=None, body=None):
    "One request with `path` sent as it is (http.client does not normalise it)."
    c = http.client.HTTPConnection(*srv.server_address, timeout=30)
    c.putrequest(method, path, skip_host=host is not None)
    if host is not None: c.putheader("Host", host)
    if body is not None: c.putheader("Content-Length", str(len(body)))
    c.endheaders(body)
    r = c.getresponse(); data = r.read(); c.close()
    return r.status, r.getheader("Content-Type"), data


@pytest.fixture
def served():
    srv, url = serve("processbench", reports_dir=ROOT / "reports", port=0, block=False)
    yield srv, url
    srv.shutdown(); srv.server_close()


def test_serve_page_figures_and_mathjax(served):
    srv, url = served
    assert srv.server_address[0] == "127.0.0.1" and url == f"http://127.0.0.1:{srv.server_address[1]}/"
    status, ctype, body = _get(srv, "/")
    assert (status, ctype) == (200, "text/html; charset=utf-8")
    page = body.decode()
    assert page.count('<section id="item-') == len(load_items(PB)[0]) and 'href="#figures"' in page
    assert _get(srv, "/explorer.html")[2] == body
    for f in sorted((PB / "figures").glob("*.png")):
        assert _get(srv, "/figures/" + quote(f.name)) == (200, "image/png", f.read_bytes())
    mj = local_mathjax()
    if mj is not None:
        assert '<script src="/mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full"></script>' in page
        assert _get(srv, "/mathjax/MathJax.js") == (200, "text/javascript", mj.read_bytes())
        for rel in ("config/TeX-AMS-MML_HTMLorMML-full.js", "extensions/Safe.js"):
            assert _get(srv, "/mathjax/" + rel)[:2] == (200, "text/javascript"), rel
    else:
        assert "math is shown as TeX source" in page and _get(srv, "/mathjax/MathJax.js")[0] == 404
    status, _, body = _get(srv, "/", method="HEAD")
    assert status == 200 and body == b""


@pytest.mark.parametrize("path", ["/../run.json", "/run.json", "/manifest.json", "/records/items.jsonl", "/figures/",
                                  "/figures/../../run.json", "/figures/..%2frun.json", "/figures/%2e%2e/run.json",
                                  "/%2e%2e/processbench/run.json", "/%2E%2E%2F%2E%2E%2Fsettings.ini", "/figures/missing.png",
                                  "/mathjax/", "/mathjax/extensions", "/mathjax/../../run.json",
                                  "/mathjax/%2e%2e/__init__.py", "/mathjax/..%2f__init__.py", "/mathjax//MathJax.js",
                                  "/mathjax/./MathJax.js", "/mathjax/%00", "/figures/f1_by_subset.png/..", "/tables/"])
def test_serve_refuses_every_other_path(served, path):
    srv, _ = served
    status, _, body = _get(srv, path)
    assert status in (403, 404), (path, status)
    assert body in (b"not found\n", b"forbidden\n"), body[:200]                 # nothing of a file, never a listing


def test_serve_answers_get_and_head_only_and_its_own_host(served):
    srv, _ = served
    for m in ("POST", "PUT", "DELETE", "PATCH", "OPTIONS"):
        assert _get(srv, "/", method=m, body=b"x=1")[0] in (405, 501), m
    assert _get(srv, "/", host="attacker.example")[0] == 403                   # a DNS name rebound to 127.0.0.1
    assert _get(srv, "/", host=f"localhost:{srv.server_address[1]}")[0] == 200


def test_serve_binds_loopback_only():
    for host in ("0.0.0.0", "192.168.1.5", "example.org", "::"):
        with pytest.raises(ValueError, match="not a loopback address"): serve("processbench", ROOT / "reports", host=host, port=0, block=False)


def test_serve_without_mathjax(tmp_path):
    d = _toy(tmp_path)
    srv, _ = serve(d, port=0, mathjax=False, block=False)
    try:
        assert b"math is shown as TeX source" in _get(srv, "/")[2]
        assert _get(srv, "/mathjax/MathJax.js")[0] == 404
        assert _get(srv, "/figures/plot.png")[:2] == (200, "image/png")
    finally: srv.shutdown(); srv.server_close()


@pytest.mark.timeout(120)
def test_ri_view_serve_on_loopback():
    "`ri view NAME --serve --port 0` serves the report's explorer on 127.0.0.1 until stopped, as `inspect view` does."
    import subprocess, sys, urllib.request
    root = Path(__file__).resolve().parents[1]
    p = subprocess.Popen([sys.executable, "-m", "reasoning_integrity.run.cli", "view", "processbench", "--serve", "--port", "0",
                          "--no-open", "--root", str(root)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = p.stdout.readline()
        assert line.startswith("serving processbench at http://127.0.0.1:"), (line, p.stderr.read() if p.poll() is not None else "")
        url = line.split(" at ", 1)[1].split()[0]
        with urllib.request.urlopen(url, timeout=30) as r:
            page = r.read().decode()
            assert r.status == 200 and r.headers.get_content_type() == "text/html"
        assert 'id="ri-filter"' in page and "<section id=\"item-" in page
    finally:
        p.terminate(); p.wait(timeout=30)
    rc = subprocess.run([sys.executable, "-m", "reasoning_integrity.run.cli", "view", "processbench", "--serve", "--port", "-5",
                         "--no-open", "--root", str(root)], capture_output=True, text=True, timeout=60)
    assert rc.returncode == 2 and "cannot serve" in rc.stderr, rc.stderr
