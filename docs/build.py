"""Build the docs site into `_docs/` from the venv alone (no Quarto, no network).

Stages every page into `_docs_src/`, then runs Sphinx (MyST-NB, sphinx-book-theme, MathJax served from the site):
- the home page: `nbs/index.ipynb` (kept equal to README.md by `sync_index`, so nbdev's README generation never
  writes less than README.md holds);
- every library notebook in `nbs/`, executed here the way `nbdev_test` executes it (cells flagged `notest`/`slow`
  skipped), so its outputs are fresh;
- an API reference: every exported name of every module, rendered by nbdev's `show_doc` from its docstring and
  docments;
- one page per experiment report in `reports/`: status, parameters, run time, models, data files with sha256, notes
  (folded), every figure, every table (all rows up to `--max-rows`, then the row count and the CSV), and the executed
  notebook. A full-profile report's page (`reports/full/`) opens with its findings, before its notes: the lines and
  figure its experiment's `FINDINGS` function computes from the report's tables, or else its headline table
  (`reasoning_integrity.run.runner.report_findings`).
  Every value on it that this script did not write (run.json, the manifest, file and table names, table notes and
  cells) is escaped so that it is only text (see `report_page`); a malformed per-item record is skipped and counted.

Usage: `python docs/build.py [--out _docs] [--no-exec] [--jobs 2] [--reports-only]`; `make docs` runs it.
`--reports-only` stages the home page and the report pages alone (no library notebook, no API page): a build of a
minute or two to check the report pages and the home page while working on them.
"""
from __future__ import annotations
import argparse, html, json, os, re, shutil, subprocess, sys, time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("MPLBACKEND", "Agg")   # the findings figures are drawn here, with no display
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


LINES_HEAD = "| line of work |"   # the header of README's table of the lines of work


def wrap_lines_table(md:str)->str:
    "`md` with README's line-of-work table inside a `ri-lines` container (laid out by the site's CSS: each line's description on a row of its own)."
    lines = md.split("\n")
    i = next((k for k, l in enumerate(lines) if l.startswith(LINES_HEAD)), None)
    if i is None: return md
    j = i
    while j < len(lines) and lines[j].startswith("|"): j += 1
    return "\n".join(lines[:i] + [":::{container} ri-lines"] + lines[i:j] + [":::"] + lines[j:])


def index_page()->str:
    "The home page: nbs/index.ipynb (README.md's text), staged as _docs_src/index.ipynb, its line-of-work table marked for the CSS."
    import nbformat
    nb = nbformat.read(ROOT / "nbs" / "index.ipynb", as_version=4)
    _strip_directives(nb)
    for c in nb.cells:
        if c.cell_type == "markdown": c.source = wrap_lines_table(c.source)
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
# A report page shows what a run wrote (run.json, the manifest, file names, table notes and cells), and a model's
# text or the model id an endpoint returns from /v1/models ends up in it. None of it may reach the page as markup.
# Markdown is not HTML: HTML-escaping a value pasted into Markdown still lets it end a code span or a fence, open a
# directive (`{raw}`, `{include}`, `{eval-rst}`) or write a link. So a report page is built of two kinds of pieces
# only: headings and sentences written here, where a value (the report's, a figure's or a table's name) is put on one
# line with every ASCII punctuation character backslash-escaped (`_md`: Markdown text and nothing else), and
# `{raw} html` blocks (`_raw`) in which every value is HTML-escaped with its backticks as `&#96;` (`_h`), so that no
# value can end the fence. Files are staged under names made of `[A-Za-z0-9_.-]` only (`_slug`).
_CTRL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _json(v)->str:
    "`v` as JSON text; a value too deep or too large for that is named instead."
    try: return json.dumps(v, default=str, ensure_ascii=False)
    except (ValueError, TypeError, RecursionError): return f"(a {type(v).__name__} that cannot be shown)"


def _h(v, limit:int|None=None)->str:
    "A value as HTML text: a string as is, anything else as JSON, cut to `limit` characters, escaped, backticks too."
    s = "" if v is None else v if isinstance(v, str) else _json(v)
    if limit and len(s) > limit: s = s[:limit - 1] + "…"
    return html.escape(_CTRL.sub("\ufffd", s), quote=True).replace("`", "&#96;")


def _prose(v, limit:int|None=None)->str:
    "Like `_h`, with the notes' `code` spans (backticks paired on one line) shown as code, as their Markdown meant."
    s = _h(v, limit).replace("&#96;", "`")  # escaped, backticks put back to be paired (no other markup is left)
    return re.sub(r"`([^`\n]+)`", r"<code>\1</code>", s).replace("`", "&#96;")


def _md(v, limit:int=200)->str:
    "A value as Markdown text on one line: control characters and line breaks as spaces, all ASCII punctuation escaped."
    s = " ".join(_CTRL.sub(" ", v if isinstance(v, str) else _json(v)).split())[:limit]
    return re.sub(r"([!-/:-@\[-`{-~])", r"\\\1", s)


def _raw(*parts:str)->str:
    "A `{raw} html` block of HTML pieces built with `_h`; a backtick left in any of them is escaped too, so none ends it."
    body = "\n".join(p for p in parts if p).replace("`", "&#96;")
    return "```{raw} html\n" + body + "\n```\n"


def _slug(name:str, used:set|None=None)->str:
    "`name` as a file or page name safe in a path, a URL and a toctree (itself when it is one), not one of `used`."
    s = re.sub(r"[^A-Za-z0-9_.-]", "_", name).strip(".")[:100] or "_"
    if used is not None:
        base, k = s, 2
        while s.lower() in used: s, k = f"{base}-{k}", k + 1
        used.add(s.lower())
    return s


def _dict(v)->dict: return v if isinstance(v, dict) else {}
def _list(v)->list: return v if isinstance(v, list) else [] if v is None or v == "" else [v]


def _html_table(head:list[str], rows:list[list[str]])->str:
    "A table in the look of the site's Markdown tables; `head` and the cells are HTML already escaped."
    th = "".join(f'<th class="head">{h}</th>' for h in head)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    return (f'<div class="ri-table-scroll" style="overflow-x:auto;max-width:100%"><table class="table"><thead><tr>{th}</tr></thead>'
            f'<tbody>{body}</tbody></table></div>')   # a wide table scrolls in its own box, not the page


def _table_html(csv:Path, max_rows:int)->tuple[str, int]:
    import pandas as pd
    try: df = pd.read_csv(csv)
    except pd.errors.EmptyDataError: return "<p><em>empty table</em></p>", 0
    except Exception as e: return f"<p><em>the table could not be read: {_h(type(e).__name__)}</em></p>", 0
    n = len(df)
    shown = df.head(max_rows)
    tab = shown.to_html(index=False, border=0, classes="table ri-table", na_rep="", float_format=lambda x: f"{x:.4g}",
                        escape=True)
    return tab.replace("`", "&#96;"), n


def _md_note(md:Path, limit:int=4000)->str:
    "The note above a table in its .md copy (the text before the first table line), at most `limit` characters."
    if not md.is_file(): return ""
    note = md.read_text(errors="replace").split("\n|", 1)[0].strip()
    return "" if note.startswith("|") else note[:limit]


def _drop_widgets(nb)->None:
    "Widget state and widget views (tqdm bars drawn with ipywidgets in a kernel) out of a notebook: a static page cannot show them and myst-nb would load the widget manager from a CDN for them; their text form stays."
    nb.metadata.pop("widgets", None)
    for c in nb.cells:
        for o in c.get("outputs", []):
            data = o.get("data") or {}
            if "application/vnd.jupyter.widget-view+json" in data:
                o["data"] = {k: v for k, v in data.items() if k == "text/plain"}
        if "outputs" in c: c["outputs"] = [o for o in c["outputs"] if o.get("output_type") != "display_data" or o.get("data")]


def _run_record(d:Path)->tuple[dict, str]:
    "A report's run.json as a dict, and what was wrong with it ('' when nothing)."
    from reasoning_integrity.run.explore import MAX_DEPTH, json_depth
    try:
        text = (d / "run.json").read_text(errors="replace")
        if json_depth(text) > 2 * MAX_DEPTH: return {}, f"run.json nests deeper than {2 * MAX_DEPTH} levels"
        rec = json.loads(text)
    except Exception as e: return {}, f"run.json could not be read: {type(e).__name__}: {e}"
    return (rec, "") if isinstance(rec, dict) else ({}, f"run.json holds a {type(rec).__name__}, not an object")


def _frame_html(df)->str:
    "A DataFrame as an escaped HTML table in the look of the report tables."
    tab = df.to_html(index=False, border=0, classes="table ri-table", na_rep="", float_format=lambda x: f"{x:.4g}", escape=True)
    return tab.replace("`", "&#96;")


def _lead(line:str)->str:
    "A findings line as HTML (`_prose`), its lead in bold: the words before the first colon outside brackets, when short."
    for m in re.finditer(": ", line):
        head = line[:m.start()]
        if len(head) > 110: break
        if head.count("(") == head.count(")") and head.count("`") % 2 == 0:
            return f"<strong>{_prose(head)}</strong>: {_prose(line[m.end():], 3000)}"
    return _prose(line, 3000)


def findings_section(d:Path, page:Path, notebook:Path|None)->list[str]:
    "The page's `## Findings` pieces for the report in `d`: its computed lines and figure (saved into `page`/figures), else its headline table."
    L = ["## Findings\n"]
    if notebook is None or not notebook.is_file():
        return L + [_raw("<p><em>No experiment notebook declares what this report found; its tables follow.</em></p>")]
    try:
        from reasoning_integrity.run.runner import report_findings
        f = report_findings(d, notebook)
    except Exception as e:   # a table the function cannot read: said on the page, the build goes on
        print(f"  findings of {d.name} could not be computed: {type(e).__name__}: {e}", file=sys.stderr)
        return L + [_raw(f'<p class="ri-warn"><em>The findings could not be computed from the tables ({_h(type(e).__name__)}).</em></p>')]
    if f.lines: L.append(_raw('<ul class="ri-findings">' + "".join(f"<li>{_lead(x)}</li>" for x in f.lines) + "</ul>"))
    if f.figure is not None:
        import matplotlib.pyplot as plt
        (page / "figures").mkdir(exist_ok=True)
        f.figure.savefig(page / "figures" / FINDINGS_FIGURE, dpi=100, bbox_inches="tight")
        plt.close(f.figure)
        L.append(f"![the findings in one figure](figures/{FINDINGS_FIGURE})\n")
    if f.table is not None and not f.lines and f.figure is None:   # the generic opening: the headline table's first rows
        L.append(_raw(f'<p class="ri-headline">Headline table: {_h(f.caption, 300)}</p>', _frame_html(f.table)))
    if not f.lines and f.figure is None and f.table is None:
        L.append(_raw("<p><em>Nothing computed from this report's tables; they follow.</em></p>"))
    return L


FINDINGS_FIGURE = "findings.png"   # the name of the findings figure on a report's page (a report figure of that name gets another)

BANNERS = {  # what a report of each kind is, said at the top of its page (text the build writes itself)
    "full": "<p><strong>Finding.</strong> Full profile: every labelled item the data holds. These tables are the "
            "workbench's results.</p>",
    "quick": "<p><strong>Pipeline check.</strong> Quick profile: a small sample that shows the pipeline runs end to end; "
             "its intervals are wide and its numbers are not findings. Where a full-profile report exists, that one is "
             "the result.</p>",
}

def report_page(d:Path, max_rows:int, page:Path, extra:Path, kind:str="quick")->str:
    "The Markdown page of the report in `d` (files it links staged into `page` and `extra`); every value escaped; `kind` ('full' or 'quick') says what it is."
    rec, bad = _run_record(d)
    params, git = _dict(rec.get("parameters")), _dict(rec.get("git"))
    L = [f"# {_md(d.name)}" + (" (full profile)" if kind == "full" else "") + "\n", _raw(BANNERS[kind]),
         _raw(f"<p><strong>status</strong> {_h(rec.get('status'), 100)} · <strong>profile</strong> {_h(params.get('profile'), 100)} · "
              f"<strong>wall time</strong> {_h(rec.get('wall_s'), 100)} s (this run; model calls answered from the response "
              f"cache are not timed separately) · <strong>finished</strong> {_h(rec.get('finished_at'), 100)} · "
              f"<strong>commit</strong> <code>{_h(str(git.get('commit') or '')[:10])}</code></p>",
              f'<p class="ri-warn"><em>{_h(bad, 300)}</em></p>' if bad else "")]
    if rec.get("error"):
        err = _dict(rec["error"]) or {"evalue": rec["error"]}
        L.append(_raw(f'<div class="highlight"><pre>{_h(err.get("ename"), 200)}: {_h(err.get("evalue"), 4000)}</pre></div>'))
    if kind == "full":   # what it found first (computed from its tables by its experiment's own function), then the rest
        L += findings_section(d, page, ROOT / "nbs" / "experiments" / f"{d.name}.ipynb")
    nb = d / f"{d.name}.ipynb"
    has_nb = nb.is_file()
    if has_nb:
        import nbformat
        try:
            x = nbformat.read(nb, as_version=4)
            x.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
            x.metadata.setdefault("myst", {})
            _drop_widgets(x)
            nbformat.write(x, page / "notebook.ipynb")
            L.append("The executed notebook, with its figures: [notebook](notebook.ipynb).\n")
        except Exception as e:
            has_nb = False
            L.append(_raw(f"<p><em>The executed notebook could not be read ({_h(type(e).__name__)}).</em></p>"))
    if any(p.is_file() for p in (d / "records").glob("*.jsonl")):  # the per-item explorer, as a static page beside the report's
        from reasoning_integrity.run.explore import MATHJAX_QUERY, load_items, skipped, write_html
        items, problems = load_items(d)
        # explorer.html sits at <site>/<prefix>/<name>/ (html_extra_path): the site's MathJax is `depth` folders up, and the
        # report's figures are copied beside it under safe names (as for this page), so its relative links resolve
        here = extra.parent.relative_to(next(p for p in extra.parents if p.name == "_extra"))
        used, links = set(), {}
        for f in sorted(f for f in (d / "figures").glob("*.png") if f.is_file() and not f.is_symlink()):
            name = _slug(f.stem, used) + ".png"
            (extra.parent / "figures").mkdir(exist_ok=True)
            shutil.copy(f, extra.parent / "figures" / name)
            links[f.name] = f"figures/{name}"
        write_html(d, out=extra.parent / "explorer.html", figures=links,
                   mathjax="../" * len(here.parts) + "_static/mathjax/MathJax.js" + MATHJAX_QUERY)
        # a plain link: explorer.html is a file of the site (html_extra_path), not a page MyST could resolve
        L.append(_raw(f"<p>Look inside each of its {len(items)} items (steps with their math typeset, per-step signals, matrices, "
                      "raw model text; a filter box, and the figures): "
                      '<a href="explorer.html">item explorer</a>.' +
                      (f' <span class="ri-warn">{_h(skipped(problems))} (listed at the top of the explorer).</span>' if problems else "")
                      + "</p>"))
    notes = _list(rec.get("notes"))
    if notes:   # folded: how the numbers were made, for the reader who asks (the findings and figures come first)
        L += ["## Notes\n", _raw('<details class="ri-notes"><summary>' + f"{len(notes)} note{'s' if len(notes) != 1 else ''} "
                                  "on how these numbers were made (click to show)</summary><ul>"
                                  + "".join(f"<li>{_prose(n, 2000)}</li>" for n in notes) + "</ul></details>")]
    figs = sorted(f for f in (d / "figures").glob("*.png") if f.is_file() and not f.is_symlink())
    if figs:
        L.append("## Figures\n")
        (page / "figures").mkdir(exist_ok=True)
        used = {FINDINGS_FIGURE[:-4]}
        for f in figs:
            name = _slug(f.stem, used) + ".png"
            shutil.copy(f, page / "figures" / name)
            L.append(f"![{_md(f.stem)}](figures/{name})\n")
    L.append("## Tables\n")
    used = set()
    for csv in sorted(c for c in (d / "tables").glob("*.csv") if c.is_file() and not c.is_symlink()):
        name = _slug(csv.stem, used) + ".csv"
        shutil.copy(csv, extra / name)
        tab, n = _table_html(csv, max_rows)
        shown = f"all {n} rows" if n <= max_rows else f"the first {max_rows} of {n} rows"
        note = _md_note(csv.with_suffix(".md"))
        L += [f"### {_md(csv.stem)}\n", _raw(f"<p>{_prose(note)}</p>" if note else "",
                                             f'<p>{shown} · <a href="tables/{name}">CSV</a></p>', tab)]
    params = _dict(rec.get("resolved_params")) or params
    if params:
        L += ["## Parameters\n", _raw(_html_table(["parameter", "value"],
              [[f"<code>{_h(k, 100)}</code>", f"<code>{_h(_json(v), 200)}</code>"] for k, v in sorted(params.items())]))]
    models = _dict(rec.get("models"))
    if models:
        rows = []
        for k, v in models.items():
            v = _dict(v) or {"spec": v}
            rows.append([_h(k, 100), f"<code>{_h(v.get('spec'), 300)}</code>", _h(_json({a: b for a, b in v.items() if a != "spec"}), 300)])
        L += ["## Models\n", _raw(_html_table(["role", "spec", "details"], rows))]
    calls = [c for c in _list(rec.get("llm_calls")) if isinstance(c, dict)]
    if calls:
        L += ["## Model calls\n", "Cold (sent to the model) vs cached (answered from the response cache) in this run.\n",
              _raw(_html_table(["model", "calls", "cached", "live", "failed", "live seconds"],
                               [[f"<code>{_h(c.get('label'), 300)}</code>"] + [_h(c.get(k), 40) for k in ("calls", "cached", "live", "failed", "live_s")]
                                for c in calls]))]
    data = [x for x in _list(rec.get("data")) if isinstance(x, dict)]
    if data:
        L += ["## Data files\n", _raw(_html_table(["file", "bytes", "sha256"],
              [[f"<code>{_h(x.get('rel'), 300)}</code>", _h(x.get("bytes"), 40), f"<code>{_h(str(x.get('sha256') or '')[:16])}…</code>"]
               for x in data]))]
    vers = _dict(rec.get("versions"))
    if vers: L += ["## Versions\n", _raw("<p>" + ", ".join(f"{_h(k, 100)} {_h(v, 100)}" for k, v in vers.items() if v) + "</p>")]
    if has_nb: L += ["```{toctree}\n:hidden:\nnotebook\n```\n"]
    return "\n".join(L)


def report_pages(max_rows:int, reports:Path|None=None, src:Path|None=None, prefix:str="reports", kind:str="quick")->list[str]:
    "One page per experiment in `reports` (default reports/), staged into `src` (default _docs_src/) under `prefix`; returns their names."
    reports, src, pages, used = Path(reports or ROOT / "reports"), Path(src or SRC), [], set()
    # the runner's own folders (`.<name>.failed/`, staging) start with a dot: a failed run is not a published report
    for d in sorted(p for p in reports.iterdir() if not p.name.startswith(".") and not p.is_symlink()
                    and (p / "run.json").is_file()) if reports.is_dir() else []:
        name = _slug(d.name, used)  # the folder's name is the runner's, but it is a path and a title here: made safe
        page = src / prefix / name; page.mkdir(parents=True, exist_ok=True)
        extra = src / "_extra" / prefix / name / "tables"; extra.mkdir(parents=True, exist_ok=True)
        (page / "index.md").write_text(report_page(d, max_rows, page, extra, kind))
        pages.append(f"{prefix}/{name}/index")
    return pages


# ---------------------------------------------------------------------------------------------------------- main
CSS = """.ri-table{font-size:.8em;display:block;overflow-x:auto;max-width:100%}.ri-table td,.ri-table th{padding:.15em .4em}.ri-warn{color:#a40000}
.ri-findings li{margin-bottom:.35em}.ri-headline{margin-bottom:.3em}
details.ri-notes>summary{cursor:pointer;font-weight:600;margin-bottom:.5em}
/* the home page's line-of-work table: each line's description on a row of its own, its paper, package and experiments
   in three columns under it (four columns squeezed the descriptions into one-word lines at a laptop's width) */
.ri-lines table{display:block;width:100%}.ri-lines thead,.ri-lines tbody{display:block}
.ri-lines tr{display:grid;grid-template-columns:minmax(0,1.25fr) minmax(0,1fr) minmax(0,1fr)}
.ri-lines td:first-child,.ri-lines th:first-child{grid-column:1/-1;border-bottom:none}
.ri-lines td:first-child{font-weight:600;padding-bottom:0}
.ri-lines span.pre,.bd-toc span.pre{white-space:normal;overflow-wrap:anywhere}
"""


def _toc(caption:str, pages:list[str], maxdepth:int=1)->str:
    return f"```{{toctree}}\n:caption: {caption}\n:maxdepth: {maxdepth}\n\n" + "\n".join(pages) + "\n```\n"


def main(argv=None)->int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(ROOT / "_docs"), help="output folder of the HTML site")
    ap.add_argument("--no-exec", action="store_true", help="render the library notebooks as stored (no execution)")
    ap.add_argument("--jobs", type=int, default=2, help="notebooks executed in parallel")
    ap.add_argument("--max-rows", type=int, default=500, help="rows of a report table shown on its page")
    ap.add_argument("--reports-only", action="store_true",
                    help="the home page and the report pages only (no library notebook, no API page): a quick check of them")
    a = ap.parse_args(argv)
    t0 = time.time()
    if not sync_index(check=True):
        raise SystemExit("nbs/index.ipynb differs from README.md: run `python docs/build.py --sync` (or make docs-sync)")
    if SRC.exists(): shutil.rmtree(SRC)
    (SRC / "_static").mkdir(parents=True); (SRC / "_extra").mkdir()
    shutil.copy(ROOT / "docs" / "conf.py", SRC / "conf.py")
    (SRC / "_static" / "favicon.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">'
                                                 '<circle cx="8" cy="8" r="7" fill="#2a6f97"/></svg>')
    (SRC / "_static" / "custom.css").write_text(CSS)
    if not a.reports_only:
        print("executing the library notebooks" if not a.no_exec else "staging the library notebooks", flush=True)
    home = index_page()
    lib = [] if a.reports_only else library_pages(not a.no_exec, a.jobs)
    api, reps = [] if a.reports_only else api_pages(), report_pages(a.max_rows)
    full = report_pages(a.max_rows, ROOT / "reports" / "full", prefix="reports/full", kind="full")
    tour = (SRC / "index.ipynb")
    import nbformat
    nb = nbformat.read(tour, as_version=4)
    nb.cells.append(nbformat.v4.new_markdown_cell((_toc("Findings (full profile)", full) if full else "") + (_toc("Notebooks", lib) if lib else "")
                                                  + _toc("Pipeline checks (quick profile)", reps) + (_toc("API reference", api) if api else "")))
    nbformat.write(nb, tour)
    cmd = [sys.executable, "-m", "sphinx", "-b", "html", "-q", "-j", str(a.jobs), str(SRC), a.out]
    r = subprocess.run(cmd)
    if r.returncode: return r.returncode
    print(f"site: {a.out}/index.html ({len(lib)} notebooks, {len(full)} full and {len(reps)} quick reports, {len(api)} API pages) "
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
