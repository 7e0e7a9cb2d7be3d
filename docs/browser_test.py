"""Load every page of the built site in headless Chromium and check what a reader would see.

For each HTML page under `_docs/` (the home page, every notebook, every report, every API page): no console error,
every internal link resolves to a file of the site (anchors included), every image has loaded (natural width > 0),
MathJax has typeset the page (no `$$` or `\\[` left in the visible text). A screenshot of each page goes to
`_docs/_screenshots/` (not committed). Exits non-zero with a list of every failure.

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
return out;
"""


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
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1600"):
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


def _check_explorer(d, rel:str)->list[str]:
    "An explorer page: items listed, the first shown by default, a click on another shows it alone, no console error."
    from selenium.webdriver.common.by import By
    fails = []
    links = d.find_elements(By.CSS_SELECTOR, "nav a")
    shown = [s for s in d.find_elements(By.CSS_SELECTOR, "main section") if s.is_displayed()]
    if not links: return [f"{rel}: explorer lists no items"]
    if len(shown) != 1: fails.append(f"{rel}: {len(shown)} items shown at first, expected 1")
    target = links[-1].get_attribute("href").rsplit("#", 1)[-1]
    links[-1].click()
    shown = [s.get_attribute("id") for s in d.find_elements(By.CSS_SELECTOR, "main section") if s.is_displayed()]
    if shown != [target]: fails.append(f"{rel}: clicking {target} shows {shown}")
    for entry in d.get_log("browser"):
        if entry.get("level") == "SEVERE": fails.append(f"{rel}: console error: {entry.get('message', '')[:200]}")
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
            if p.name == "explorer.html":  # a report's item explorer (reasoning_integrity.explore): no MathJax, model text
                fails += _check_explorer(d, rel)
                if shots: d.save_screenshot(str(shot_dir / (rel.replace("/", "__") + ".png")))
                continue
            if not _wait_mathjax(d): fails.append(f"{rel}: MathJax did not finish")
            info = d.execute_script(_CHECK_JS)
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
    finally:
        d.quit(); srv.shutdown()
    print(f"{len(pages)} pages checked, {len(fails)} failure(s)")
    return fails


def main(argv=None)->int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--site", default=str(ROOT / "_docs"))
    ap.add_argument("--no-screenshots", action="store_true")
    a = ap.parse_args(argv)
    fails = check_site(Path(a.site), not a.no_screenshots)
    for f in fails: print("FAIL", f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
