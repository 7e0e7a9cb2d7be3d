"""Load every page of the built site in headless Chromium and check what a reader would see.

For each HTML page under `_docs/` (the home page, every notebook, every report, every API page): no console error,
every internal link resolves to a file of the site (anchors included), every image has loaded (natural width > 0),
MathJax has typeset the page (no `$$` or `\\[` left in the visible text). At a laptop's width (1400 px): a full-profile
report's page opens with its Findings section (for metric_validity with its forest plot, loaded) before its notes, and
every report page's notes are folded until their summary is clicked; the home page's line-of-work table leaves each
cell room (no cell narrower than `MIN_CELL_PX`, descriptions at `MIN_WORDS_PER_LINE` words a line or more, nothing
wider than the page). A screenshot of each page goes to `_docs/_screenshots/` (not committed), and of each full
report's notes, opened, beside it. Exits non-zero with a list of every failure.

Needs Debian's `chromium` and `chromium-driver` (`make docs-test` installs them when missing) and selenium.
Usage: `python docs/browser_test.py [--site _docs]`.
"""
from __future__ import annotations
import argparse, http.server, socketserver, sys, threading, time
from functools import partial
from pathlib import Path
from urllib.parse import urljoin, urlparse, unquote

ROOT = Path(__file__).resolve().parents[1]

_CHECK_JS = r"""
const out = {images: [], links: [], text: ''};
for (const img of document.images) out.images.push([img.currentSrc || img.src, img.complete, img.naturalWidth]);
for (const a of document.querySelectorAll('a[href]')) out.links.push(a.getAttribute('href'));
const main = (document.querySelector('main') || document.body).cloneNode(true);
for (const el of main.querySelectorAll('pre, code, .highlight, script, style, .MathJax_Preview')) el.remove();
document.body.appendChild(main); main.style.display = 'block';
out.text = main.innerText;   // the prose a reader sees, code left out (regexes may hold \[ or $$)
main.remove();
out.mathjax = (typeof MathJax !== 'undefined');
out.overflow = document.documentElement.scrollWidth - document.documentElement.clientWidth;   // > 0: the page scrolls sideways
return out;
"""


WIDTH = 1400                 # a laptop's browser window, in CSS pixels: every check and screenshot is at this width
MIN_CELL_PX = 150            # the narrowest a cell of the home page's line-of-work table may be
MIN_WORDS_PER_LINE = 4       # a line-of-work description wraps into lines of at least this many words on average
FINDINGS_FIGURE = {"metric_validity": "findings.png"}   # full reports whose Findings section must show a figure

_REPORT_JS = r"""
const f = document.querySelector('section#findings'), n = document.querySelector('section#notes');
const top = e => e ? e.getBoundingClientRect().top + window.scrollY : null;
const out = {findings: !!f, notes: !!n, order: null, findings_top: top(f), notes_top: top(n), imgs: [], details: []};
if (f && n) out.order = (f.compareDocumentPosition(n) & Node.DOCUMENT_POSITION_FOLLOWING) ? 'findings first' : 'notes first';
if (f) out.imgs = Array.from(f.querySelectorAll('img')).map(i => [i.getAttribute('src'), i.complete, i.naturalWidth]);
if (f) out.lines = f.querySelectorAll('li').length;
// every list of notes: inside a closed <details>, not shown (checkVisibility: a closed details' content is skipped) until opened
const shown = u => u.checkVisibility ? u.checkVisibility() : u.getClientRects().length > 0;
if (n) out.details = Array.from(n.querySelectorAll('ul')).map(u => {
  const d = u.closest('details');
  return {folded: !!d && !d.open, shown: shown(u)};
});
return out;
"""

_LINES_TABLE_JS = r"""
const t = Array.from(document.querySelectorAll('table')).find(
  t => { const th = t.querySelector('th'); return th && th.innerText.trim() === 'line of work'; });
if (!t) return null;
const main = document.querySelector('article') || document.querySelector('main') || document.body, mr = main.getBoundingClientRect();
const cells = Array.from(t.querySelectorAll('tbody td')).map(td => {
  const r = td.getBoundingClientRect(), p = td.querySelector('p') || td;
  const lh = parseFloat(getComputedStyle(p).lineHeight) || 24;
  const words = p.innerText.trim().split(/\s+/).filter(w => w).length;
  return {text: p.innerText.trim().slice(0, 40), width: Math.round(r.width), right: Math.round(r.right),
          first: td === td.parentElement.firstElementChild, words: words, lines: Math.max(1, Math.round(p.getBoundingClientRect().height / lh))};
});
return {cells: cells, main_right: Math.round(mr.right), table_right: Math.round(t.getBoundingClientRect().right)};
"""


def _check_report(d, rel:str, shots:Path|None)->list[str]:
    "A report page: its notes folded (and shown by a click on their summary); a full report's Findings section before them."
    from selenium.webdriver.common.by import By
    r, fails = d.execute_script(_REPORT_JS), []
    full = rel.startswith("reports/full/")
    name = rel.split("/")[-2]
    if full:
        if not r["findings"]: fails.append(f"{rel}: no Findings section")
        elif not r.get("lines"): fails.append(f"{rel}: the Findings section has no lines")
        elif r["notes"] and (r["order"] != "findings first" or r["findings_top"] >= r["notes_top"]):
            fails.append(f"{rel}: the notes come before the findings ({r['order']})")
        want = FINDINGS_FIGURE.get(name)
        if want:
            figs = [i for i in r["imgs"] if want in (i[0] or "")]
            if not figs: fails.append(f"{rel}: no {want} in the Findings section")
            for src, complete, w in figs:
                if not complete or not w: fails.append(f"{rel}: the findings figure did not load: {src}")
    for k, u in enumerate(r["details"]):
        if not u["folded"] or u["shown"]: fails.append(f"{rel}: notes list {k} is not folded ({u})")
    if r["notes"] and any(u["folded"] for u in r["details"]):
        summary = d.find_element(By.CSS_SELECTOR, "section#notes details > summary")
        d.execute_script("arguments[0].scrollIntoView()", summary); summary.click()
        if not d.execute_script("return document.querySelector('section#notes details ul').checkVisibility()"):
            fails.append(f"{rel}: a click on the notes' summary does not show them")
        elif full and shots: d.save_screenshot(str(shots / (rel.replace("/", "__") + ".notes.png")))
    return fails


def _check_home(d, rel:str)->list[str]:
    "The home page's line-of-work table at this width: every cell wide enough, descriptions not one word a line, nothing cut off."
    r = d.execute_script(_LINES_TABLE_JS)
    if r is None: return [f"{rel}: no line-of-work table (a table whose first header is 'line of work')"]
    fails = [f"{rel}: line-of-work cell {c['text']!r} is {c['width']} px wide (at least {MIN_CELL_PX})"
             for c in r["cells"] if c["width"] < MIN_CELL_PX]
    desc = [c for c in r["cells"] if c["first"]]
    words, lines = sum(c["words"] for c in desc), sum(c["lines"] for c in desc)
    if not desc or words / lines < MIN_WORDS_PER_LINE:
        fails.append(f"{rel}: the line-of-work descriptions wrap at {words / max(lines, 1):.1f} words a line (at least {MIN_WORDS_PER_LINE})")
    if r["table_right"] > r["main_right"] + 1:
        fails.append(f"{rel}: the line-of-work table is wider than the page ({r['table_right']} > {r['main_right']} px)")
    return fails


def _serve(site:Path):
    "Serve the site on a free loopback port (pages load over http, as on GitHub Pages)."
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *a): pass
    handler = partial(Quiet, directory=str(site))
    srv = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, f"http://127.0.0.1:{srv.server_address[1]}/"


def _driver():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    opts = webdriver.ChromeOptions()
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--window-size={WIDTH},1600"):
        opts.add_argument(a)
    opts.binary_location = next((p for p in ("/usr/bin/chromium", "/usr/bin/chromium-browser") if Path(p).exists()), "")
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    drv = next((p for p in ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver") if Path(p).exists()), None)
    return webdriver.Chrome(options=opts, service=Service(drv) if drv else Service())


def _wait_mathjax(d, timeout:float=20.0):
    "Wait until MathJax 2 has finished typesetting (or there is no MathJax on the page)."
    t0 = time.time()
    while time.time() - t0 < timeout:
        done = d.execute_script("if (!document.querySelector('script[src*=\"MathJax.js\"]')) return true;"
                                "if (typeof MathJax === 'undefined' || !MathJax.Hub) return false;"
                                "if (window.__riMJ === undefined) { window.__riMJ = false;"
                                " MathJax.Hub.Register.StartupHook('End', function(){"
                                "  MathJax.Hub.Queue(function(){ window.__riMJ = true; }); }); }"
                                "return window.__riMJ;")
        if done: return True
        time.sleep(0.2)
    return False


_EXPLORER_TEX_JS = r"""
const s = document.getElementById(arguments[0]);
if (!s) return null;
const text = Array.from(s.querySelectorAll('.ri-tex')).map(e => e.innerText).join('\n');
// a pair of the configured delimiters (docs/conf.py: \( \) inline, \[ \] displayed) still in the text is math left
// untypeset; a lone \( (a step cut in the middle of its math) is not math, and $ is not a delimiter of the site's
const left = text.match(/\\\([\s\S]*?\\\)|\\\[[\s\S]*?\\\]/);
return {state: s.getAttribute('data-mj'), left: left ? left[0].slice(0, 80) : null,
        typeset: s.querySelectorAll('script[type^="math/tex"]').length};
"""


def _explorer_typeset(d, rel:str, sec:str, timeout:float=30.0)->list[str]:
    "The explorer's section `sec` typeset by MathJax (its `data-mj` is 'done'), and no delimited math left in its steps."
    t0, r = time.time(), None
    while time.time() - t0 < timeout:
        r = d.execute_script(_EXPLORER_TEX_JS, sec)
        if r is None or r["state"] == "done": break
        time.sleep(0.2)
    if r is None: return [f"{rel}: no section {sec}"]
    if r["state"] != "done": return [f"{rel}: MathJax did not typeset {sec} (state {r['state']})"]
    return [f"{rel}: untypeset math in {sec}: {r['left']!r}"] if r["left"] else []


def _check_explorer(d, rel:str)->list[str]:
    "An explorer page: items listed, the first shown by default, a click on another shows it alone, the math of the item "
    "shown typeset by the site's MathJax, the figures loaded, the filter box narrowing the list, no console error."
    from selenium.webdriver.common.by import By
    fails = []
    links = d.find_elements(By.CSS_SELECTOR, "nav a[data-text]")
    shown = [s for s in d.find_elements(By.CSS_SELECTOR, "main section") if s.is_displayed()]
    if not links: return [f"{rel}: explorer lists no items"]
    if len(shown) != 1: fails.append(f"{rel}: {len(shown)} items shown at first, expected 1")
    if not d.find_elements(By.CSS_SELECTOR, 'script[src*="MathJax.js"]'): fails.append(f"{rel}: the explorer loads no MathJax")
    elif not _wait_mathjax(d): fails.append(f"{rel}: MathJax did not finish")
    else:
        if shown: fails += _explorer_typeset(d, rel, shown[0].get_attribute("id"))
    target = links[-1].get_attribute("href").rsplit("#", 1)[-1]
    links[-1].click()
    shown = [s.get_attribute("id") for s in d.find_elements(By.CSS_SELECTOR, "main section") if s.is_displayed()]
    if shown != [target]: fails.append(f"{rel}: clicking {target} shows {shown}")
    elif d.find_elements(By.CSS_SELECTOR, 'script[src*="MathJax.js"]'): fails += _explorer_typeset(d, rel, target)
    figs = d.find_elements(By.CSS_SELECTOR, 'nav a[href="#figures"]')
    if figs:   # the figures load lazily: shown, then loaded
        figs[0].click()
        t0, imgs = time.time(), []
        while time.time() - t0 < 20:
            imgs = d.execute_script("return Array.from(document.querySelectorAll('#figures img'))"
                                    ".map(i => [i.getAttribute('src'), i.complete, i.naturalWidth])")
            if imgs and all(c for _, c, _ in imgs): break
            time.sleep(0.2)
        if not imgs: fails.append(f"{rel}: the figures section shows no figure")
        for src, complete, w in imgs:
            if not complete or not w: fails.append(f"{rel}: figure not loaded: {src}")
    # the filter box: a word of the last item's text that not every item has leaves exactly the items that have it
    texts = [a.get_attribute("data-text") for a in links]
    words = [w for w in dict.fromkeys(texts[-1].split()) if len(w) >= 4 and w.isascii()]
    word = next((w for w in words if 0 < sum(w in t for t in texts) < len(texts)), None) or "zz-no-such-item-zz"
    want = sum(word in t for t in texts)
    box = d.find_element(By.CSS_SELECTOR, "#ri-filter")
    box.clear(); box.send_keys(word.upper())   # case-insensitive
    visible = [a for a in d.find_elements(By.CSS_SELECTOR, "nav a[data-text]") if a.is_displayed()]
    count = d.find_element(By.CSS_SELECTOR, "#ri-count").text
    if len(visible) != want or (len(links) > 1 and want >= len(links)):
        fails.append(f"{rel}: filter {word!r} shows {len(visible)} of {len(links)} items, expected {want}")
    if count != f"{want} of {len(links)} items": fails.append(f"{rel}: filter count says {count!r}, expected {want} of {len(links)}")
    box.clear(); box.send_keys(" ")
    if len([a for a in d.find_elements(By.CSS_SELECTOR, "nav a[data-text]") if a.is_displayed()]) != len(links):
        fails.append(f"{rel}: an empty filter does not show every item again")
    for entry in d.get_log("browser"):
        msg = entry.get("message", "")
        # MathJax 2's web-font probe (a font at about:blank), which Chromium reports as blocked: allowed, as on the site's pages
        if "about:blank" in msg and ("font" in msg or msg.startswith("about:blank")): continue
        if entry.get("level") == "SEVERE": fails.append(f"{rel}: console error: {msg[:200]}")
    return fails


def check_site(site:Path, shots:bool=True)->list[str]:
    "Every failure found on every page of `site`."
    pages = sorted(p for p in site.rglob("*.html") if "_static" not in p.parts and "_sources" not in p.parts
                   and "_screenshots" not in p.parts and p.name not in ("genindex.html", "search.html"))
    if not pages: return [f"no HTML pages under {site}"]
    srv, base = _serve(site)
    d, fails = _driver(), []
    shot_dir = site / "_screenshots"; shot_dir.mkdir(exist_ok=True)
    try:
        for p in pages:
            rel = p.relative_to(site).as_posix()
            url = urljoin(base, rel)
            d.get(url)
            if p.name == "explorer.html":  # a report's item explorer (reasoning_integrity.run.explore): model text, the site's MathJax
                fails += _check_explorer(d, rel)
                if shots: d.save_screenshot(str(shot_dir / (rel.replace("/", "__") + ".png")))
                continue
            if not _wait_mathjax(d): fails.append(f"{rel}: MathJax did not finish")
            info = d.execute_script(_CHECK_JS)
            if rel.startswith("reports/") and rel.endswith("/index.html") and info["overflow"] > 1:   # a report page at a laptop's width
                fails.append(f"{rel}: the page is {info['overflow']} px wider than the window at {WIDTH} px (a wide table or figure outside a scroll box)")
            for src, complete, w in info["images"]:
                if not complete or not w: fails.append(f"{rel}: image not loaded: {src}")
            for href in info["links"]:
                u = urlparse(urljoin(url, href))
                if u.scheme not in ("http", "https") or u.netloc != urlparse(base).netloc: continue
                target = site / unquote(u.path.lstrip("/"))
                if target.is_dir(): target = target / "index.html"
                if not target.exists(): fails.append(f"{rel}: broken link {href}")
            text = info["text"]
            for marker in ("$$", "\\[", "\\(", "\\begin{"):
                if marker in text: fails.append(f"{rel}: untypeset math ({marker!r} in the page text)"); break
            for entry in d.get_log("browser"):
                msg = entry.get("message", "")
                # MathJax 2's HTML-CSS output probes web-font support with a font at about:blank, which Chromium
                # reports as a blocked request; it is the only console error allowed (the math itself is checked)
                if "about:blank" in msg and ("font" in msg or msg.startswith("about:blank")): continue
                if entry.get("level") == "SEVERE": fails.append(f"{rel}: console error: {entry.get('message', '')[:200]}")
            if shots: d.save_screenshot(str(shot_dir / (rel.replace("/", "__") + ".png")))
            if rel == "index.html": fails += _check_home(d, rel)
            if rel.startswith("reports/") and rel.endswith("/index.html"): fails += _check_report(d, rel, shot_dir if shots else None)
    finally:
        d.quit(); srv.shutdown()
    print(f"{len(pages)} pages checked, {len(fails)} failure(s)")
    return fails


_SIDES_JS = r"""
const s = Array.from(document.querySelectorAll('main section')).find(x => x.offsetParent !== null);
if (!s) return null;
const cols = Array.from(s.querySelectorAll('.ri-sides > .ri-side')).map(c => {const r = c.getBoundingClientRect();
  return {label: c.querySelector('h4').innerText, left: r.left, top: r.top, width: r.width, steps: c.querySelectorAll('tr').length - 1};});
return {id: s.id, cols: cols, title: s.querySelector('h3').innerText};
"""


def _two_scored_runs(tmp:Path)->Path:
    "`ri score` two small runs of the same six sums (B states two false ones, written in TeX) and `ri compare` them: the reports folder."
    import json, subprocess
    ri = [sys.executable, "-c", "import sys; from reasoning_integrity.run.cli import main; sys.exit(main(sys.argv[1:]))"]
    for name, bad in (("plain", {}), ("careful", {1: 1, 4: 40})):
        rows = [dict(id=f"q{i}", question=f"What is {i + 2} + {i + 5}?", correct=not bad.get(i),
                     chain=f"We add {i + 2} and {i + 5}.\n\n\\({i + 2} + {i + 5} = {2 * i + 7 + bad.get(i, 0)}\\)\n\nSo {2 * i + 7 + bad.get(i, 0)}.")
                for i in range(6)]
        (tmp / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        subprocess.run(ri + ["score", str(tmp / f"{name}.jsonl"), "--signals", "length,verified_computation,computation_error",
                             "--reports-dir", str(tmp / "reports"), "--no-progress"], check=True, capture_output=True, cwd=tmp)
    subprocess.run(ri + ["compare", "plain", "careful", "--n-boot", "200", "--reports-dir", str(tmp / "reports")],
                   check=True, capture_output=True, cwd=tmp)
    return tmp / "reports"


def check_comparison(shot_dir:Path|None=None)->list[str]:
    "`ri view plain-vs-careful --serve` at 1400 px: the explorer's checks, and each sample's two runs side by side, the largest difference first."
    import socket, subprocess, tempfile
    fails, tmp = [], Path(tempfile.mkdtemp(prefix="ri-compare-"))
    reports = _two_scored_runs(tmp)
    with socket.socket() as so: so.bind(("127.0.0.1", 0)); port = so.getsockname()[1]
    srv = subprocess.Popen([sys.executable, "-c", "import sys; from reasoning_integrity.run.cli import main; sys.exit(main(sys.argv[1:]))",
                            "view", "plain-vs-careful", "--serve", "--port", str(port), "--no-open", "--reports-dir", str(reports)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp)
    line = srv.stdout.readline()   # "serving plain-vs-careful at http://127.0.0.1:PORT/ (Ctrl-C stops)"
    if "serving plain-vs-careful at" not in line:
        srv.kill(); return [f"ri view plain-vs-careful --serve did not start: {line!r} {srv.stderr.read()[-500:]!r}"]
    d = _driver()
    try:
        d.set_window_size(WIDTH, 1000)
        d.get(f"http://127.0.0.1:{port}/")
        fails += _check_explorer(d, "ri view plain-vs-careful")
        d.get(f"http://127.0.0.1:{port}/#item-0")
        r = d.execute_script(_SIDES_JS)
        if not r: return fails + ["ri view plain-vs-careful: no item shown"]
        if not r["title"].startswith("q4 · computation_error"):   # 6 + 9 = 55: the largest difference of the six
            fails.append(f"ri view plain-vs-careful: the first item is {r['title']!r}, not the largest difference (q4)")
        c = r["cols"]
        if [x["label"] for x in c] != ["A: plain", "B: careful"]: fails.append(f"ri view plain-vs-careful: sides {c}")
        elif not (abs(c[0]["top"] - c[1]["top"]) < 2 and c[1]["left"] >= c[0]["left"] + c[0]["width"] and min(x["width"] for x in c) > 300
                  and [x["steps"] for x in c] == [3, 3]):
            fails.append(f"ri view plain-vs-careful: the two runs are not side by side at 1400 px: {c}")
        fails += _explorer_typeset(d, "ri view plain-vs-careful", r["id"])
        if shot_dir: d.save_screenshot(str(shot_dir / "ri-view-plain-vs-careful.png"))
    finally:
        d.quit(); srv.kill()
    print(f"ri view plain-vs-careful checked, {len(fails)} failure(s)")
    return fails


def main(argv=None)->int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--site", default=str(ROOT / "_docs"))
    ap.add_argument("--no-screenshots", action="store_true")
    a = ap.parse_args(argv)
    fails = check_site(Path(a.site), not a.no_screenshots)
    fails += check_comparison(None if a.no_screenshots else Path(a.site) / "_screenshots")
    for f in fails: print("FAIL", f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
