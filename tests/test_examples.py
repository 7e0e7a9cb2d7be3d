"""README's worked run reads its task from `examples/arith/` (inspect_ai's `arith.py`, lm-eval's `tasks/arith_ri.yaml`):
the two tools must ask the same twelve sums, with the right answers, and the YAML must find its data from the checkout."""
import ast, json
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
EX = ROOT / "examples" / "arith"


def test_inspect_task_and_lm_eval_task_ask_the_same_sums():
    rows = [json.loads(l) for l in (EX / "arith.jsonl").read_text().splitlines()]
    tree = ast.parse((EX / "arith.py").read_text())
    sums = next(ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == "SUMS")
    assert [r["id"] for r in rows] == [f"q{i}" for i in range(12)] and len(sums) == 12
    assert [(r["question"], r["answer"]) for r in rows] == [(f"What is {a} + {b}?", str(a + b)) for a, b in sums]
    cfg = yaml.load((EX / "tasks" / "arith_ri.yaml").read_text(), Loader=yaml.BaseLoader)   # `!function` left as text
    assert (ROOT / cfg["dataset_kwargs"]["data_files"]["test"]).is_file()
    assert cfg["generation_kwargs"]["max_gen_toks"] == "48" and cfg["task"] == "arith_ri"
    assert "examples/arith/arith.py" in (ROOT / "README.md").read_text()
