"""The rep_protocol experiment stays thin (issue 30): its helpers live in `lines.trajectory.report`, which returns
tables, figures, notes and items and never imports `run/`."""
import ast, json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_rep_protocol_notebook_only_calls_the_library():
    nb = json.loads((ROOT / "nbs/experiments/rep_protocol.ipynb").read_text())
    src = [l for c in nb["cells"] if c["cell_type"] == "code" for l in "".join(c["source"]).splitlines()]
    tree = ast.parse("\n".join(l for l in src if not l.lstrip().startswith(("%", "!"))))
    defs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    named_lambdas = [n for n in ast.walk(tree) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Lambda)]
    assert sum(1 for l in src if l.strip()) <= 200
    assert len(defs) + len(named_lambdas) <= 2


def test_report_module_imports_no_run_layer():
    tree = ast.parse((ROOT / "reasoning_integrity/lines/trajectory/report.py").read_text())
    mods = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module]
    assert not [m for m in mods if m.startswith("reasoning_integrity.run")]
