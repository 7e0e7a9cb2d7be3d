"""Build the docs site into `_docs/` from the venv alone (no Quarto, no network).

Stages every page into `_docs_src/`, then runs Sphinx (MyST-NB, sphinx-book-theme, MathJax served from the site):
- the home page: `nbs/index.ipynb` (kept equal to README.md by `sync_index`, so nbdev's README generation never
  writes less than README.md holds);
- every library notebook in `nbs/`, executed here the way `nbdev_test` executes it (cells flagged `notest`/`slow`
  skipped), so its outputs are fresh;
- an API reference: every exported name of every module, rendered by nbdev's `show_doc` from its docstring and
  docments;
- one page per experiment report in `reports/`: status, parameters, run time, models, data files with sha256, notes,
  every figure, every table (all rows up to `--max-rows`, then the row count and the CSV), and the executed notebook.

Usage: `python docs/build.py [--out _docs] [--no-exec] [--jobs 2]`; `make docs` runs it.
"""
from __future__ import annotations
import argparse, html, json, os, re, shutil, subprocess, sys, time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "_docs_src"
SKIP_FLAGS = {"notest", "slow"}   # settings.ini tst_flags: the cells nbdev_test skips


# ---------------------------------------------------------------------------------------------------------------- home
def sync_index(check:bool=False)->bool:
    "Write README.md into nbs/index.ipynb (one markdown cell before any code cells); with `check`, only compare."
    import nbformat
    path = ROOT / "nbs" / "index.ipynb"
    nb = nbformat.read(path, as_version=4)
    readme = (ROOT / "README.md").read_text().rstrip("\n")
    md = [c for c in nb.cells if c.cell_type == "markdown"]
    same = len(nb.cells) >= 1 and nb.cells[0].cell_type == "markdown" and nb.cells[0].source == readme
    if check or same: return same
    code = [c for c in nb.cells if c.cell_type == "code"]
    nb.cells = [nbformat.v4.new_markdown_cell(readme)] + code
    nbformat.write(nb, path)
    return True


# ------------------------------------------------------------------------------------------------ library notebooks
def _strip_directives(nb)->None:
    "Drop nbdev directive lines (`#| export`) from the shown source, and cells marked `#| hide`; mark it Python."
    nb.metadata["language_info"] = {"name": "python", "pygments_lexer": "ipython3"}
    keep = []
    for c in nb.cells:
        if c.get("cell_type") == "code":
            lines = c["source"].splitlines()
            if any(l.strip().replace(" ", "") in ("#|hide", "#|include:false") for l in lines): continue
            c["source"] = "\n".join(l for l in lines if not l.lstrip().startswith("#|")).strip("\n")
        keep.append(c)
    nb.cells = keep


def execute_notebook(src:str, dest:str, keep_source:bool=False)->tuple[str, bool, float, str]:
    "Execute a library notebook as nbdev_test does and write it with its outputs to `dest` (`keep_source`: as is)."
    from execnb.nbio import read_nb, write_nb
    from execnb.shell import CaptureShell
    from fastcore.xtras import working_directory
    src, dest, t0 = Path(src), Path(dest), time.time()
    nb = read_nb(src)
    def _skip(cell):
        if cell.cell_type != "code": return True
        flags = {l.strip()[2:].strip().split()[0] for l in cell.source.splitlines()
                 if l.strip().startswith("#|") and len(l.strip()) > 2}
        no_eval = any(l.strip().replace(" ", "").lower() == "#|eval:false" for l in cell.source.splitlines())
        return bool(flags & SKIP_FLAGS) or no_eval
    os.environ["IN_TEST"] = "1"
    sys.argv = [str(src)]  # as in a kernel: code that reads sys.argv must not see this script's arguments
    k = CaptureShell(src)
    try:
        with working_directory(src.parent): k.run_all(nb, exc_stop=True, preproc=_skip)
        ok, err = True, ""
    except Exception:
        ok, err = False, k.prettytb(fname=src)
    if not keep_source:
        _strip_directives(nb)
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    dest.parent.mkdir(parents=True, exist_ok=True)
    if ok or not keep_source: write_nb(nb, dest)   # a failed run never overwrites a source notebook
    return src.name, ok, time.time() - t0, err


def library_pages(execute:bool, jobs:int)->list[str]:
    "Stage nbs/*.ipynb (executed unless `execute` is False) into _docs_src/nbs/; returns their page names."
    nbs = sorted(p for p in (ROOT / "nbs").glob("*.ipynb") if p.name != "index.ipynb")
    out = SRC / "nbs"; out.mkdir(parents=True, exist_ok=True)
    if not execute:
        import nbformat
        for p in nbs:
            nb = nbformat.read(p, as_version=4); _strip_directives(nb); nbformat.write(nb, out / p.name)
        return [f"nbs/{p.stem}" for p in nbs]
    failed = []
    def _one(p):  # each notebook in its own Python process (a fresh kernel state, as nbdev_test gives)
        t0 = time.time()
        r = subprocess.run([sys.executable, __file__, "--exec-one", str(p), str(out / p.name)],
                           capture_output=True, text=True)
        return p.name, r.returncode == 0, time.time() - t0, (r.stdout + r.stderr)[-4000:]
    with ThreadPoolExecutor(jobs) as ex:
        for name, ok, secs, err in ex.map(_one, nbs):
            print(f"  {'ok  ' if ok else 'FAIL'} {name} ({secs:.0f} s)", flush=True)
            if not ok: failed.append((name, err))
    if failed:
        for name, err in failed: print(f"\n{name} failed:\n{err}", file=sys.stderr)
        raise SystemExit(f"{len(failed)} notebook(s) failed to execute: {[n for n, _ in failed]}")
    return [f"nbs/{p.stem}" for p in nbs]


def index_page()->str:
    "The home page: nbs/index.ipynb (README.md's text), staged as _docs_src/index.ipynb."
    import nbformat
    nb = nbformat.read(ROOT / "nbs" / "index.ipynb", as_version=4)
    _strip_directives(nb)
    nbformat.write(nb, SRC / "index.ipynb")
    return "index"


# ---------------------------------------------------------------------------------------------------------- API
def api_pages()->list[str]:
    "One page per module: nbdev's `show_doc` of every name in its `__all__`."
    import importlib, pkgutil
    import reasoning_integrity as pkg
    from nbdev.showdoc import BasicMarkdownRenderer
    out = SRC / "api"; out.mkdir(parents=True, exist_ok=True)
    pages = []
    for m in sorted(pkgutil.walk_packages(pkg.__path__, "reasoning_integrity."), key=lambda m: m.name):
        if m.name.endswith("_modidx"): continue
        try: mod = importlib.import_module(m.name)
        except Exception as e:  # an optional dependency missing: say so on the page rather than drop it
            body = f"*Not importable here: {type(e).__name__}: {e}*\n"; names = []
        else:
            names, body = list(getattr(mod, "__all__", [])), ""
        parts = [f"# `{m.name}`\n", (mod.__doc__ or "").strip() + "\n" if not body else body]
        for n in names:
            obj = getattr(mod, n, None)
            if obj is None or not (callable(obj) or isinstance(obj, type)):
                parts.append(f"### `{n}`\n\n`{html.escape(repr(obj))[:300]}`\n"); continue
            try: parts.append(BasicMarkdownRenderer(obj)._repr_markdown_().replace("$", "\\$") + "\n")
            except Exception as e: parts.append(f"### `{n}`\n\n*(no rendered doc: {type(e).__name__})*\n")
        name = m.name.split(".", 1)[1].replace(".", "_")
        (out / f"{name}.md").write_text("\n".join(parts))
        pages.append(f"api/{name}")
    return pages


# ------------------------------------------------------------------------------------------------------ reports
def _table_html(csv:Path, max_rows:int)->tuple[str, int]:
    import pandas as pd
    try: df = pd.read_csv(csv)
    except pd.errors.EmptyDataError: return "<p><em>empty table</em></p>", 0
    n = len(df)
    shown = df.head(max_rows)
    tab = shown.to_html(index=False, border=0, classes="table ri-table", na_rep="", float_format=lambda x: f"{x:.4g}",
                        escape=True)
    return tab, n


def _md_note(md:Path)->str:
    "The note above a table in its .md copy (the text before the first table line)."
    if not md.exists(): return ""
    note = md.read_text().split("\n|", 1)[0].strip()
    return "" if note.startswith("|") else note


def _drop_widgets(nb)->None:
    "Widget state and widget views (tqdm bars drawn with ipywidgets in a kernel) out of a notebook: a static page cannot show them and myst-nb would load the widget manager from a CDN for them; their text form stays."
    nb.metadata.pop("widgets", None)
    for c in nb.cells:
        for o in c.get("outputs", []):
            data = o.get("data") or {}
            if "application/vnd.jupyter.widget-view+json" in data:
                o["data"] = {k: v for k, v in data.items() if k == "text/plain"}
        if "outputs" in c: c["outputs"] = [o for o in c["outputs"] if o.get("output_type") != "display_data" or o.get("data")]


def report_pages(max_rows:int)->list[str]:
    "One page per experiment in reports/: its run record, figures, tables and the executed notebook."
    pages = []
    for d in sorted(p for p in (ROOT / "reports").iterdir() if (p / "run.json").exists()):
        name = d.name
        rec = json.loads((d / "run.json").read_text())
        page = SRC / "reports" / name; page.mkdir(parents=True, exist_ok=True)
        extra = SRC / "_extra" / "reports" / name / "tables"; extra.mkdir(parents=True, exist_ok=True)
        L = [f"# {name}\n", f"**status** {rec.get('status')} · **profile** "
             f"{(rec.get('parameters') or {}).get('profile', '')} · **wall time** {rec.get('wall_s', '')} s "
             f"(this run; model calls answered from the response cache are not timed separately) · "
             f"**finished** {rec.get('finished_at', '')} · **commit** `{(rec.get('git') or {}).get('commit', '')[:10]}`\n"]
        if rec.get("error"): L.append(f"```text\n{rec['error'].get('ename')}: {rec['error'].get('evalue')}\n```\n")
        nb = d / f"{name}.ipynb"
        if nb.exists():
            import nbformat
            x = nbformat.read(nb, as_version=4)
            x.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
            x.metadata.setdefault("myst", {})
            _drop_widgets(x)
            nbformat.write(x, page / "notebook.ipynb")
            L.append("The executed notebook, with its figures: [notebook](notebook.ipynb).\n")
        if any((d / "records").glob("*.jsonl")):  # the per-item explorer, as a static page beside the report's
            from reasoning_integrity.explore import write_html, load_items
            write_html(d, out=extra.parent / "explorer.html")
            n_items = len(load_items(d)[0])
            L.append(f"Look inside each of its {n_items} items (steps, per-step signals, matrices, raw model text): "
                     "[item explorer](explorer.html).\n")
        notes = rec.get("notes") or []
        if notes: L += ["## Notes\n"] + [f"- {html.escape(n)}" for n in notes] + [""]
        figs = sorted((d / "figures").glob("*.png"))
        if figs:
            L.append("## Figures\n")
            (page / "figures").mkdir(exist_ok=True)
            for f in figs:
                shutil.copy(f, page / "figures" / f.name)
                L.append(f"![{f.stem}](figures/{f.name})\n")
        L.append("## Tables\n")
        for csv in sorted((d / "tables").glob("*.csv")):
            shutil.copy(csv, extra / csv.name)
            tab, n = _table_html(csv, max_rows)
            shown = f"all {n} rows" if n <= max_rows else f"the first {max_rows} of {n} rows"
            L += [f"### {csv.stem}\n", html.escape(_md_note(csv.with_suffix(".md"))) + "\n",
                  f"{shown} · [CSV](tables/{csv.name})\n", "```{raw} html\n" + tab + "\n```\n"]
        params = rec.get("resolved_params") or rec.get("parameters") or {}
        if params:
            L += ["## Parameters\n", "| parameter | value |", "|---|---|"]
            L += [f"| `{k}` | `{html.escape(json.dumps(v, default=str))[:200]}` |" for k, v in sorted(params.items())] + [""]
        models = rec.get("models") or {}
        if models:
            L += ["## Models\n", "| role | spec | details |", "|---|---|---|"]
            L += [f"| {k} | `{v.get('spec', '')}` | {html.escape(json.dumps({a: b for a, b in v.items() if a != 'spec'}, default=str))[:300]} |"
                  for k, v in models.items()] + [""]
        calls = rec.get("llm_calls") or []
        if calls:
            L += ["## Model calls\n", "Cold (sent to the model) vs cached (answered from the response cache) in this run.\n",
                  "| model | calls | cached | live | failed | live seconds |", "|---|---|---|---|---|---|"]
            L += [f"| `{c.get('label')}` | {c.get('calls')} | {c.get('cached')} | {c.get('live')} | {c.get('failed')} | "
                  f"{c.get('live_s')} |" for c in calls] + [""]
        data = rec.get("data") or []
        if data:
            L += ["## Data files\n", "| file | bytes | sha256 |", "|---|---|---|"]
            L += [f"| `{x.get('rel')}` | {x.get('bytes')} | `{str(x.get('sha256', ''))[:16]}…` |" for x in data] + [""]
        vers = rec.get("versions") or {}
        if vers: L += ["## Versions\n", ", ".join(f"{k} {v}" for k, v in vers.items() if v) + "\n"]
        children = ["notebook"] if nb.exists() else []
        if children: L += ["```{toctree}\n:hidden:\n" + "\n".join(children) + "\n```\n"]
        (page / "index.md").write_text("\n".join(L))
        pages.append(f"reports/{name}/index")
    return pages


# ---------------------------------------------------------------------------------------------------------- main
def _toc(caption:str, pages:list[str], maxdepth:int=1)->str:
    return f"```{{toctree}}\n:caption: {caption}\n:maxdepth: {maxdepth}\n\n" + "\n".join(pages) + "\n```\n"


def main(argv=None)->int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(ROOT / "_docs"), help="output folder of the HTML site")
    ap.add_argument("--no-exec", action="store_true", help="render the library notebooks as stored (no execution)")
    ap.add_argument("--jobs", type=int, default=2, help="notebooks executed in parallel")
    ap.add_argument("--max-rows", type=int, default=500, help="rows of a report table shown on its page")
    a = ap.parse_args(argv)
    t0 = time.time()
    if not sync_index(check=True):
        raise SystemExit("nbs/index.ipynb differs from README.md: run `python docs/build.py --sync` (or make docs-sync)")
    if SRC.exists(): shutil.rmtree(SRC)
    (SRC / "_static").mkdir(parents=True); (SRC / "_extra").mkdir()
    shutil.copy(ROOT / "docs" / "conf.py", SRC / "conf.py")
    (SRC / "_static" / "favicon.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">'
                                                 '<circle cx="8" cy="8" r="7" fill="#2a6f97"/></svg>')
    (SRC / "_static" / "custom.css").write_text(".ri-table{font-size:.8em}.ri-table td,.ri-table th{padding:.15em .4em}\n")
    print("executing the library notebooks" if not a.no_exec else "staging the library notebooks", flush=True)
    home, lib = index_page(), library_pages(not a.no_exec, a.jobs)
    api, reps = api_pages(), report_pages(a.max_rows)
    tour = (SRC / "index.ipynb")
    import nbformat
    nb = nbformat.read(tour, as_version=4)
    nb.cells.append(nbformat.v4.new_markdown_cell(_toc("Notebooks", lib) + _toc("Experiment reports", reps)
                                                  + _toc("API reference", api)))
    nbformat.write(nb, tour)
    cmd = [sys.executable, "-m", "sphinx", "-b", "html", "-q", "-j", str(a.jobs), str(SRC), a.out]
    r = subprocess.run(cmd)
    if r.returncode: return r.returncode
    print(f"site: {a.out}/index.html ({len(lib)} notebooks, {len(reps)} reports, {len(api)} API pages) "
          f"in {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--exec-one"]:
        name, ok, secs, err = execute_notebook(sys.argv[2], sys.argv[3], keep_source="--keep-source" in sys.argv)
        if not ok: print(err, file=sys.stderr)
        sys.exit(0 if ok else 1)
    if "--store-outputs" in sys.argv:  # execute nbs/*.ipynb in place so readers on GitHub see their results
        nbs = sorted(p for p in (ROOT / "nbs").glob("*.ipynb"))
        def _store(p):
            return p.name, subprocess.run([sys.executable, __file__, "--exec-one", str(p), str(p), "--keep-source"],
                                          capture_output=True, text=True).returncode
        with ThreadPoolExecutor(2) as ex: res = list(ex.map(_store, nbs))
        bad = [n for n, rc in res if rc]
        print(f"{len(res) - len(bad)} notebooks stored with outputs" + (f"; failed (left as they were): {bad}" if bad else ""))
        sys.exit(1 if bad else 0)
    if "--sync" in sys.argv: print("nbs/index.ipynb synced from README.md" if sync_index() else "unchanged"); sys.exit(0)
    sys.exit(main())
