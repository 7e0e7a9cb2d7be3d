"""Every parser of model text survives hostile input (issue 14): no exception, the structural result, no lone surrogate.

One test per row of the issue's table (each failed or hung on the committed code before the fix), the other critic
parsers, and a hypothesis property test over every parser. Speed is not asserted here: `benchmarks/fuzz_parsers.py`
runs 10,000 hostile inputs per parser and counts inputs over 2 s.
"""
import dataclasses, os, sys, tempfile
from pathlib import Path
import pandas as pd
import pytest
from hypothesis import given, settings, HealthCheck, strategies as st

from reasoning_integrity.core.text import MAX_CHARS
from reasoning_integrity.lines.trajectory.types import parse_trajectory, example_trajectory_json
from reasoning_integrity.lines.ptp.traces import (read_program, parse_trace, check_steps, extract_ptp_answer, extract_cot_answer,
                                             extract_direct_answer, normalize_target, normalize_answer, is_correct)
from reasoning_integrity.lines.long_cot.critic import (parse_section_list, parse_first_error, parse_delta_official,
                                                  read_delta_answer, parse_pb_official, read_pb_answer)
from reasoning_integrity.lines.alignment.scos import extract_chain, format_chain
from reasoning_integrity.lines.trajectory.tasks import check_answer, answer_matches

CANARY = os.path.join(tempfile.gettempdir(), "ri_hostile_canary")
PAYLOADS = [f"__import__('os').system('touch {CANARY}')", f"open('{CANARY}', 'w').write('x')",
            f"exec(\"open('{CANARY}','w')\")", f"(lambda: __import__('subprocess').run(['touch', '{CANARY}']))()"]
SURROGATES = ["\ud83d", "\udc80", "\ude00x\ud800", b"caf\xe9 \xff\xfe".decode("utf-8", "surrogateescape")]
HUGE = "9" * 4400                      # int() refuses more than 4,300 digits
MB5 = 5_000_000

# every string of a result (dataclasses, containers, DataFrames): the benchmark's walker, so both check the same thing
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from fuzz_parsers import strings as walk  # noqa: E402  (the benchmark's code runs only under __main__)

def assert_encodable(x):
    "No lone surrogate in any output string: each encodes as UTF-8 (what a cache key or a report does next)."
    for s in walk(x): s.encode("utf-8")

@pytest.fixture(autouse=True)
def no_canary():
    if os.path.exists(CANARY): os.remove(CANARY)
    yield
    assert not os.path.exists(CANARY), "model text was executed"

# ---- row 1: parse_trace + check_steps --------------------------------------------------------------------------
PROG = read_program("from typing import List\ndef f(x: int) -> int:\n  ...\ndef g(s: str) -> List[str]:\n  ...\n")

def test_parse_trace_check_steps_hostile_values():
    "`ast.parse` in `read_args` raised UnicodeEncodeError, RecursionError, MemoryError, ValueError: each is a row now."
    values = ["'\ud83d'", "-" * 8_000 + "1", "1+" * 8_000 + "1", "[" * 8_000, "(" * 8_000, HUGE, "'a\x00b'", *PAYLOADS]
    trace = "".join(f"Calling f({v})...\n...f returned {v}\n" for v in values) + "Final answer: \ud83d"
    pt = parse_trace(trace, PROG)
    c = check_steps(pt, PROG)                          # raised on the committed code
    assert pt.well_formed and len(c) == len(values) and pt.answer == "\ufffd"
    assert c.syntax_ok.tolist() == [True] + [False] * (len(values) - 1)   # the surrogate became U+FFFD: a string
    assert c.type_ok.tolist()[0] is False             # ... which is not an int
    assert_encodable((pt, c))

def test_parse_trace_oversized_and_surrogates():
    t = ("Calling g('\udc80')...\n...g returned ['\ud83d']\n" * (MB5 // 40)) + "Final answer: x"
    pt = parse_trace(t, PROG)
    assert [p.kind for p in pt.problems].count("too_long") == 1 and pt.answer is None   # cut before the answer
    assert pt.steps and pt.steps[0].args == "'\ufffd'" and pt.steps[0].ret == "['\ufffd']"
    assert_encodable(pt)
    deep = parse_trace("Calling f(1)...\n" * 5000 + "...h returned 1\n" * 5000 + "Final answer: 1", PROG)
    assert len(deep.steps) == 5000 and not deep.well_formed   # 5,000 open calls and unmatched returns: counted

# ---- row 2: parse_section_list --------------------------------------------------------------------------------
def test_parse_section_list_hostile():
    kinds = lambda r: {p.kind for p in r.problems}
    r = parse_section_list("[" * 100_000)                               # RecursionError from raw_decode
    assert r.sections is None and "no_numbers" in kinds(r)
    r = parse_section_list("[" + HUGE + ", 3]")                        # ValueError: 4,400-digit int
    assert r.sections is None
    r = parse_section_list('{"errors": [1e999, NaN, 2, 12345678901]}')  # int(inf) raised OverflowError
    assert r.sections == {2} and {"non_finite", "number_too_large"} <= kinds(r)
    r = parse_section_list(" ".join(map(str, range(1, 41))) + " are wrong")   # the exponential bare-list pattern
    assert r.sections is None and r.rule == "failed"
    r = parse_section_list("Sections " + " ".join(map(str, range(1, 41))) + " are wrong", 40)
    assert r.sections == set(range(1, 41)) and r.rule == "mention"
    r = parse_section_list("{" * 500_000 + "x")                         # the candidate scan was quadratic
    assert r.sections is None
    r = parse_section_list("x" * MB5 + " 3")
    assert r.sections is None and "input_truncated" in kinds(r)
    r = parse_section_list("\ud83d section 3 \x00" + SURROGATES[3])
    assert r.sections == {3}; assert_encodable(r)
    r = parse_section_list("\udcff" + PAYLOADS[0])
    assert r.sections is None; assert_encodable(r)

# ---- row 3: scos.extract_chain --------------------------------------------------------------------------------
def test_extract_chain_hostile():
    c = extract_chain("Step " + HUGE + ": a\nStep 2: b\nConclusion: c\nAnswer: A")     # int() of 4,400 digits
    assert c.steps == ["a", "b"] and c.answer == "A" and "number_too_large" in {p.kind for p in c.problems}
    sp = " " * 600                                                                     # cubic in the spaces
    c = extract_chain(f"Step{sp}x\n{sp}x\n**{sp}Conclusion{sp}x\nAnswer{sp}x")
    assert c.steps == [] and c.conclusion is None and not c.valid
    c = extract_chain("Step 1: \ud83d\nConclusion: \udc80 \x00\nAnswer: B", prefix="")
    assert (c.steps, c.conclusion, c.answer) == (["\ufffd"], "\ufffd \x00", "B"); assert_encodable(c)
    c = extract_chain("Step 1: a\n" + "b\n" * (MB5 // 2))
    assert "input_truncated" in {p.kind for p in c.problems} and len(c.steps) == 1

# ---- row 4: parse_trajectory ----------------------------------------------------------------------------------
def test_parse_trajectory_no_lone_surrogates():
    "4.1 % of results held lone surrogates (JSON escapes, surrogateescape bytes) that crashed the next encoder."
    text = ('{"steps": [{"hypotheses": ["\\ud83d", "a"], "confidence": [0.5, 0.5], "constraints": ["\\udc80"], '
            '"note": "\\ud800"}], "answer": "\\ude00"}\n' + SURROGATES[3] + "\x00")
    T, pr = parse_trajectory(text)
    assert len(T) == 1 and T[0].hypotheses == ["\ufffd", "a"] and T.answer == "\ufffd"
    assert_encodable((T, pr)); T.to_json().encode("utf-8")
    T, pr = parse_trajectory("{'hypotheses': ['\\udc80'], 'answer': '\\ud83d'}")   # a Python literal
    assert T[0].hypotheses == ["\ufffd"] and T.answer == "\ufffd"; assert_encodable((T, pr))
    T, pr = parse_trajectory("[" * 100_000 + PAYLOADS[0])
    assert len(T) == 0; assert_encodable((T, pr))

# ---- row 5: answer extractors ---------------------------------------------------------------------------------
def test_answer_extractors_hostile():
    big = "Final answer: " + "1" * MB5 + ".0"
    a = extract_ptp_answer(big)
    assert len(a) <= MAX_CHARS                                   # cut, not the whole 5 MB line
    assert len(extract_direct_answer("x" * MB5)) == MAX_CHARS
    assert extract_cot_answer("y" * MB5 + " the answer is (B).") is None   # past the cut
    assert normalize_target("1" * 200_000) == "1" * 200_000     # the `([0-9]+)\.0+$` search was quadratic
    assert normalize_target("12.000\n") == "12"
    assert extract_ptp_answer("Final answer: a" + " " * 100_000 + "b", "last").endswith("b")
    for s in SURROGATES:
        for out in (extract_ptp_answer(f"Final answer: {s}"), extract_cot_answer(f"the answer is {s}."),
                    extract_direct_answer(s), normalize_answer(s, "(B)"), normalize_target(s), check_answer(s, "cellar")):
            assert_encodable(out)
    assert extract_ptp_answer(None) is None and extract_cot_answer(None) is None and extract_direct_answer(None) == ""
    assert is_correct("1" * MB5, "(A)") is False and is_correct(None, "(A)") is False
    assert check_answer(" ".join(["7"] * 200_000) + " x", "12").verdict == "wrong"   # negation test per number: quadratic
    assert check_answer("answer is 1 " * 8_000 + "= 12", "12").correct
    assert check_answer("inf", "12").verdict == "empty" and not answer_matches("nan", "12")
    r = check_answer("\ud83d the cellar", "cellar", ["attic", "cellar"])
    assert r.correct; assert_encodable(r)

# ---- the other critic parsers -----------------------------------------------------------------------------------
def test_other_critic_parsers_hostile():
    v, pr = parse_first_error("step" + " " * 30_000 + "x")       # `step\s*#?\s*` was quadratic
    assert v is None and [p.kind for p in pr] == ["no_numbers"]
    assert parse_first_error("Step 1234 is wrong; step 2")[0] == 2   # not 123
    v, pr = parse_first_error("\ud83d" * 100)
    assert v is None; assert_encodable(pr)
    assert parse_delta_official("Conclusion: yes\nError Section Number: " + HUGE) == (1, [-1])   # int() raised
    a = read_delta_answer("Conclusion: yes\nError Section Number: " + HUGE + "\nExplanation: \ud83d")
    assert a["pred"] == [-1] and [p.kind for p in a["problems"]] == ["number_too_large"]; assert_encodable(a)
    a = read_delta_answer("\udc80 sections 2 and 4", 10)
    assert a["pred"] == [2, 4] and a["parser"] == "fallback"; assert_encodable(a)
    assert parse_pb_official(r"\boxed{" + "9" * 40 + "}") is None       # a 40-digit step index
    assert parse_pb_official(r"\boxed{" + HUGE + "}") is None
    assert parse_pb_official(r"\boxed{" * 200_000) is None            # the box pattern rescanned to the end each time
    a = read_pb_answer(r"\boxed{" + "1" * 20 + "}", 5)
    assert (a["pred"], a["parser"], [p.kind for p in a["problems"]]) == (None, "none", ["bad_boxed"])
    a = read_pb_answer("x" * MB5 + r"\boxed{2}", 5)
    assert a["pred"] is None and "input_truncated" in [p.kind for p in a["problems"]]

# ---- hypothesis: every parser, arbitrary text and mutations of real outputs ------------------------------------------
REAL = {
    "ptp": "Calling f(3)...\n...f returned 4\nCalling g('a b')...\n...g returned ['a', 'b']\nFinal answer: (B)",
    "critic": "Conclusion: yes\nError Section Number: 4\nExplanation: 3 * 4 is 12, not 13.\nSections 2, 5-6 are wrong. "
              '{"error_sections": [2, "5-6"]}',
    "pb": "Paragraph 1 adds the wrong numbers. The earliest error is in paragraph 1.\n\\boxed{1}",
    "chain": format_chain(["Birds have wings.", "Wings let birds fly."], "B") + "The answer is (B).",
    "traj": "Here:\n```json\n" + example_trajectory_json("paired") + "\n```\nThe answer is 7.",
    "answer": "So 3 * 12 = 36, not 35. So the answer is 36.",
}
PARSERS = {
    "ptp": lambda t: (lambda pt: (pt, check_steps(pt, PROG)))(parse_trace(t, PROG)),
    "critic": lambda t: (parse_section_list(t, 30), parse_delta_official(t), read_delta_answer(t, 30)),
    "pb": lambda t: (parse_first_error(t, 10), parse_pb_official(t), read_pb_answer(t, 10)),
    "chain": lambda t: extract_chain(t, ["physical change", "chemical change"], "Step 1:"),
    "traj": lambda t: parse_trajectory(t),
    "answer": lambda t: (extract_ptp_answer(t), extract_ptp_answer(t, "last"), extract_cot_answer(t), extract_direct_answer(t),
                         normalize_answer(t, "(B)"), normalize_target(t), is_correct(t, "(B)"), is_correct(t, "12", "project"),
                         check_answer(t, "36"), check_answer(t, "cellar", ["attic", "cellar"]), answer_matches(t, "yes", ["yes", "no"])),
}
FRAGMENTS = ["\x00", *SURROGATES, "[" * 3000, "{" * 3000, "(" * 300, "-" * 3000, HUGE, "inf", "NaN", "Infinity", "1e999",
             *PAYLOADS, " " * 600, " ".join(map(str, range(1, 30))) + " are wrong", "section " * 50, "\\boxed{" * 50,
             "Calling f(" * 30, "...f returned " * 30, "Final answer:" + " " * 300, "= " * 100, "\\u", "\\ud83d", '"\\udc80"']
hostile = st.lists(st.one_of(st.text(max_size=30), st.sampled_from(FRAGMENTS), st.characters(categories=["Cs"])),
                   max_size=8).map("".join)

@st.composite
def mutated(draw, real):
    "A real output with a few edits: a hostile fragment inserted, a slice deleted or repeated."
    s = real
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(s)))
        op = draw(st.sampled_from(["insert", "delete", "repeat", "cut"]))
        if op == "insert": s = s[:i] + draw(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=10))) + s[i:]
        elif op == "delete": s = s[:i] + s[i + draw(st.integers(1, 20)):]
        elif op == "repeat": s = s[:i] + s[i:i + 20] * draw(st.integers(2, 50)) + s[i:]
        else: s = s[:i]
    return s

@pytest.mark.parametrize("name", list(PARSERS))
def test_property_never_raises_never_surrogates(name):
    @settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(st.one_of(st.text(), hostile, mutated(REAL[name])))
    def prop(t):
        assert_encodable(PARSERS[name](t))
    prop()
