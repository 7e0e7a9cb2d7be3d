"""The layer contract, read from the import graph of the package (every `import`, module-level or inside a function):

    core  <  models  <  lines/<line>  <  signals  <  logs, run  <  the front door (`__init__`, `inspect`)

A module imports only its own layer or inner ones; the pure modules (types, metrics, parsers, statistics) import
only `core` and their own line's pure modules, never `models/`, a protocol runner or `run/`; and no module imports a
private name (`_x`) from another folder (another line, another component)."""
import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "reasoning_integrity"
RANK = {"core": 0, "models": 1, "lines": 2, "signals": 3, "logs": 4, "run": 4, "": 5}
# pure: arrays, text or scorers in, numbers or records out; no models, no I/O beyond the data files of core.data
PURE = {"core.text", "core.stats", "signals.chains", "lines.trajectory.types", "lines.trajectory.tasks", "lines.trajectory.divergence",
        "lines.trajectory.complexity", "lines.trajectory.perturb", "lines.ptp.traces", "lines.ptp.stats",
        "lines.alignment.score", "lines.long_cot.metrics", "signals.metrics", "signals.verify", "logs.segment"}


def _modules():
    out = {}
    for p in PKG.rglob("*.py"):
        if p.name == "_modidx.py": continue
        rel = p.relative_to(PKG).with_suffix("")
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        out[".".join(parts)] = p
    return out


def _imports(name, path):
    "(module imported, name imported or None) for every import of the package in `path`."
    pkg = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out = []
    for n in ast.walk(ast.parse(path.read_text())):
        if isinstance(n, ast.Import):
            out += [(a.name, None) for a in n.names]
        elif isinstance(n, ast.ImportFrom):
            if n.level:
                base = pkg[:len(pkg) - (n.level - 1)]
                mod = ".".join(["reasoning_integrity", *base, *([n.module] if n.module else [])])
            else: mod = n.module or ""
            out += [(mod, a.name) for a in n.names]
    res = []
    for mod, nm in out:
        if not (mod == "reasoning_integrity" or mod.startswith("reasoning_integrity.")): continue
        mod = mod.removeprefix("reasoning_integrity").removeprefix(".")
        if nm and f"{mod}.{nm}".strip(".") in MODS: mod, nm = f"{mod}.{nm}".strip("."), None   # `from pkg import module`
        res.append((mod, nm))
    return res


MODS = _modules()
GRAPH = {m: _imports(m, p) for m, p in MODS.items()}


def _layer(m): return m.split(".")[0] if m.split(".")[0] in RANK else ""   # a package's __init__ is of its layer
def _folder(m): return m.rsplit(".", 1)[0] if "." in m else ""


def test_the_layout_is_the_documented_one():
    assert {m.split(".")[0] for m in MODS if "." in m} == {"core", "models", "lines", "signals", "logs", "run"}
    assert {m.split(".")[1] for m in MODS if m.startswith("lines.") and m.count(".") >= 2} == {"trajectory", "ptp", "alignment", "long_cot"}
    assert {m for m in MODS if "." not in m} - set(RANK) == {"inspect"}   # the front door: the top-level API and the inspect_ai scorer


@pytest.mark.parametrize("mod", sorted(MODS))
def test_outer_depends_on_inner_only(mod):
    bad = [(m, n) for m, n in GRAPH[mod] if m in MODS and RANK[_layer(m)] > RANK[_layer(mod)]]
    assert not bad, f"{mod} ({_layer(mod) or 'front door'}) imports outer layers: {bad}"


@pytest.mark.parametrize("mod", sorted(PURE))
def test_pure_modules_import_only_core_and_their_lines_pure_modules(mod):
    assert mod in MODS, mod
    bad = [m for m, _ in GRAPH[mod] if m in MODS and not (m.startswith("core.") or m in PURE)]
    assert not bad, f"{mod} is pure but imports {bad}"


def test_no_private_name_crosses_a_folder():
    bad = [(mod, m, n) for mod, deps in GRAPH.items() for m, n in deps
           if n and n.startswith("_") and not n.startswith("__") and _folder(m) != _folder(mod)]
    assert not bad, bad


def test_lines_do_not_import_each_others_protocols():
    "A line may use another line's pure definitions (the DTW path of trajectory's divergence), never its runners or data."
    bad = [(mod, m) for mod, deps in GRAPH.items() if mod.startswith("lines.") for m, _ in deps
           if m.startswith("lines.") and m.split(".")[1] != mod.split(".")[1] and m not in PURE]
    assert not bad, bad


def test_the_checker_sees_a_violation(tmp_path):
    "The graph reader itself: a relative import of an outer layer, inside a function, is found."
    p = tmp_path / "x.py"
    p.write_text("def f():\n    from ...run.runner import reproduce\n    from ..text import _WS\n")
    assert _imports("core.sub.x", p) == [("run.runner", "reproduce"), ("core.text", "_WS")]


def _cycles(graph):
    "Strongly connected components of more than one module (Tarjan), each sorted."
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]
    def visit(v):
        index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
        for w in graph[v]:
            if w not in index: visit(w); low[v] = min(low[v], low[w])
            elif w in on: low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v: break
            if len(comp) > 1: out.append(sorted(comp))
    for v in graph:
        if v not in index: visit(v)
    return out


def test_the_import_graph_has_no_circle():
    "Every import counts, module-level or inside a function: components register through entry points, not imports."
    graph = {m: sorted({x for x, _ in GRAPH[m] if x in MODS and x != m}) for m in MODS}
    assert _cycles({"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}) == [["a", "b", "c"]]   # the check can fail
    assert not _cycles(graph), f"import circles: {_cycles(graph)}"


def test_the_signal_registry_defines_no_signal():
    src = (PKG / "signals" / "registry.py").read_text()
    assert "@signal(" not in src and "SIGNALS.register(" in src   # the machinery registers what the family modules declare


def test_the_runner_keeps_to_orchestration():
    "run/runner.py runs experiments; parameters, the report folder, the kernel and the index are modules of their own."
    n = len((PKG / "run" / "runner.py").read_text().splitlines())
    assert n < 400, f"run/runner.py has {n} lines"
    assert {"run.params", "run.folder", "run.kernel", "run.index"} <= set(MODS)
