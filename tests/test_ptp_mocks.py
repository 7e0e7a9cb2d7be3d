import numpy as np
"Mock framework and PTP protocols: generated traces parse back to the same steps; protocols with a scripted model."
import ast, re
from types import SimpleNamespace
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from reasoning_integrity.lines.ptp.traces import parse_trace, read_program, check_steps
from reasoning_integrity.lines.ptp.programs import arith_mock, dyck_mock, sports_mock, step_prompt
from reasoning_integrity.lines.ptp.protocol import (run_ptp, single_step_accuracy, intervene, modularity_table, step_output,
                                               modularity_study)

@pytest.mark.parametrize("mock", [sports_mock, arith_mock, dyck_mock], ids=lambda m: m.name)
def test_generated_traces_parse_back(mock):
    P = read_program(mock.program(micro_k=3))
    assert P.problems == [] and {s.name for s in mock.steps} <= set(P.steps)
    for x in mock.demos:
        text, _ = mock.run(x)
        pt = parse_trace(text, P)
        assert pt.well_formed and pt.problems == []
        assert [f"Calling {s.fn}({s.args})..." for s in pt.steps] == [l for l in text.splitlines() if l.startswith("Calling")]
        c = check_steps(pt, P)
        assert c.syntax_ok.all() and c.type_ok.all()

@settings(max_examples=50, deadline=None)
@given(st.lists(st.sampled_from(list("([{<")), min_size=1, max_size=12))
def test_dyck_oracle_closes_any_prefix(opens):
    text, ans = dyck_mock.run("Input: " + " ".join(opens))
    pairs = {"(": ")", "[": "]", "{": "}", "<": ">"}
    assert ans.split() == [pairs[c] for c in reversed(opens)]
    pt = parse_trace(text)
    assert pt.well_formed and pt.abstract.count("update_stack") == len(opens)

@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(-9, 9), min_size=8, max_size=8), st.sampled_from(["+", "-", "*"]))
def test_arith_oracle_matches_python(v, op):
    a, b = f"{v[0]} + {v[1]} * {v[2]} - {v[3]}", f"{v[4]} * {v[5]} - {v[6]} + {v[7]}"
    expr = f"(({a}) {op} ({b})) ="
    want = {"+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y}[op](
        v[0] + v[1] * v[2] - v[3], v[4] * v[5] - v[6] + v[7])
    assert arith_mock.run(expr)[1] == want

class Scripted:
    "A fake LLM: PTP prompts get the mock's trace; single steps of eval_flat answer 0 after overgenerating."
    def __init__(self): self.traces = []
    def generate(self, reqs, progress=False):
        out = []
        for q in reqs:
            block = q.prompt.rsplit("```", 2)[-2].strip("\n")
            if "Respond with the remainder" in q.prompt:
                pre = block.split("\n")
                full = next(t for t in self.traces if t[:len(pre) - 1] == pre[:-1])
                text = "\n".join(full[len(pre):])
            elif block.startswith(">>> multistep_arithmetic_two("):
                text, _ = arith_mock.run(block[len(">>> multistep_arithmetic_two("):-1])   # the input, unquoted
                self.traces.append(text.split("\n"))
            else:
                text = "Calling eval_flat('1 + 1')...\n...eval_flat returned 0\nCalling substitute('x', 'y', 0)...\n"
            out.append(SimpleNamespace(text=text, error=None, finish_reason="stop"))
        return out

def test_protocols_with_scripted_model():
    llm, prog = Scripted(), arith_mock.program()
    ex = pd.DataFrame(dict(input=["((1 + 2) * (3 - 4)) =", "((2 * 3) + (4 - 1)) ="], target=["-3", "9"]))
    base = run_ptp(llm, prog, "multistep_arithmetic_two", ex).assign(task="m")
    assert base.correct.tolist() == [True, True]
    assert base.raw.tolist() == [arith_mock.run(x)[0] for x in ex.input]   # the model's text, as generated
    acc = single_step_accuracy(llm, prog, [("eval_flat", "'1 + 2'")], {"eval_flat": arith_mock.steps[1].fn})
    assert acc.rule.tolist() == ["trace"] and acc.correct.tolist() == [False]   # first matching call: 0, not 3
    assert acc.raw[0].startswith("Calling eval_flat('1 + 1')...\n...eval_flat returned 0")
    fz = intervene(llm, prog, base, "eval_flat", "force").assign(task="m")
    assert fz.changed.all() and len(fz) == 2
    assert (fz.step_raw == acc.raw[0]).all() and all(o.endswith("\n" + r) for o, r in zip(fz.output, fz.raw))
    sp = intervene(llm, prog, base, "eval_flat", "split").assign(task="m")
    assert sp.correct.all() and not sp.changed.any() and sp.step_raw.isna().all()
    src, _ = modularity_study(llm, {"m": prog}, {"m": base}, {"m": "eval_flat"}, n_resamples=50)
    iv = src.attrs["intervened"]   # the study's intervened rows, per kind: the same calls as `intervene`'s
    assert iv["split"].raw.tolist() == sp.raw.tolist() and iv["force"].step_raw.tolist() == fz.step_raw.tolist()
    m = modularity_table(base, sp, n_resamples=100)
    # nothing moved: the step-count t-test has no p (flagged), the other two have p = 1
    assert np.isnan(m.p[0]) and m.degenerate[0] and m.p[1:].tolist() == [1.0, 1.0] and (m.p_hat[1:] == 1.0).all()

def test_step_prompt_replaces_final_call():
    p = step_prompt("PROG", "eval_flat", "'1 + 2'")
    assert ">>> eval_flat('1 + 2')" in p and "{task_name}" not in p and "{partial_program}" not in p

def test_model_errors_are_rows_not_exceptions():
    class Failing:
        def generate(self, reqs, progress=False):
            return [SimpleNamespace(text="", error="Timeout: 30s", finish_reason=None) for _ in reqs]
    ex = pd.DataFrame(dict(input=["((1 + 2) * (3 - 4)) ="], target=["-3"]))
    r = run_ptp(Failing(), arith_mock.program(), "multistep_arithmetic_two", ex)
    assert r.error.tolist() == ["Timeout: 30s"] and r.correct.tolist() == [False] and r.raw.tolist() == [""]
