"Parser robustness: nesting, truncation, hallucination, bad literals, wrong types, 10 MB of noise (counted, never raised)."
import os, random, string
import pytest
from hypothesis import given, settings, strategies as st
from reasoning_integrity.lines.ptp.traces import (read_program, parse_trace, check_steps, wellformedness, read_value,
                                             ValueReadError, extract_ptp_answer, normalize_answer)

PROG = '''
from typing import List, Tuple
@traced
def split(s: str) -> List[str]:
  ...
@traced
def push(stack: List[str], c: str) -> List[str]:
  ...
@traced
def is_open(c: str) -> bool:
  ...
def task(s):
  """
  >>> task('( [')
  Calling split('( [')...
  ...split returned ['(', '[']
  Final answer: ] )
  """
  ...
'''
P = read_program(PROG)

def test_nesting_depths_and_pairs():
    t = ("Calling split('( [')...\n...split returned ['(', '[']\n"
         "Calling push([], '(')...\nCalling is_open('(')...\n...is_open returned True\n...push returned ['(']\n"
         "Final answer: )\n")
    pt = parse_trace(t, P)
    assert pt.well_formed and pt.abstract == ("split", "push", "is_open")
    assert [s.depth for s in pt.steps] == [0, 0, 1]
    c = check_steps(pt, P)
    assert c.type_ok.tolist() == [True, True, True]

def test_truncation_counted():
    t = "Calling split('( [')...\n...split returned ['(', '[']\nCalling push([], '(')...\nCalling is_open('("
    pt = parse_trace(t, P)
    assert pt.truncated and not pt.well_formed
    kinds = [p.kind for p in pt.problems]
    assert kinds.count("truncated") >= 1 and "no_final_answer" in kinds

def test_hallucinated_step():
    pt = parse_trace("Calling frobnicate(1)...\n...frobnicate returned 2\nFinal answer: 2", P)
    assert pt.hallucinated == ["frobnicate"]
    assert not check_steps(pt, P).well_formed.any()

def test_bad_literals_and_wrong_types():
    t = ("Calling split('it's')...\n...split returned ['it']\n"        # string error
         "Calling split('ab')...\n...split returned [1, 2]\n"          # type error
         "Calling split('ab')...\n...split returned __import__('os')\n"  # not a literal: syntax error, never run
         "Final answer: x")
    c = check_steps(parse_trace(t, P), P)
    assert c.syntax_ok.tolist() == [False, True, False]
    assert c.string_error.tolist() == [True, False, False]
    assert c.type_ok.tolist()[1] is False
    w = wellformedness(c)
    assert w["no_syntax_error_pct"] == pytest.approx(100 / 3)
    assert w["no_syntax_error_ignoring_str_pct"] == pytest.approx(200 / 3)

def test_ten_megabytes_of_noise():
    rng = random.Random(0)
    alphabet = string.printable + "…'\"()[]{}"
    pieces, size = [], 0
    frags = ["Calling ", "...", " returned ", "Final answer:", "(", ")...", "\n", "Calling split(", "...push returned "]
    while size < 10_000_000:
        s = rng.choice(frags) if rng.random() < 0.3 else "".join(rng.choices(alphabet, k=rng.randint(1, 80)))
        pieces.append(s); size += len(s)
    noise = "".join(pieces)
    pt = parse_trace(noise, P)          # must not raise
    c = check_steps(pt, P)              # must not raise either
    assert len(c) == len(pt.steps)
    kinds = {p.kind for p in pt.problems}
    assert pt.problems and kinds <= {"too_long", "truncated", "unpaired_call", "unpaired_return", "hallucinated_step",
                                     "unverified_step", "no_final_answer"}
    # failures are counted: malformed calls and unreadable values are rows of `check_steps`, not exceptions
    assert int((~c.well_formed.astype(bool)).sum()) + int((c.syntax_ok == False).sum()) > 0
    w = wellformedness(c)
    assert w["n_calls"] == len(c) and w["well_formed_calls_pct"] < 100

@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_any_text_never_raises(s):
    pt = parse_trace(s, P)
    check_steps(pt, P)
    extract_ptp_answer(s)
    try: read_value(s, P.records)
    except ValueReadError as e: assert e.kind in ("string", "syntax")

def test_option_normalisation():
    assert [normalize_answer(x, "(C)") for x in ["C", "(C) Ambiguous", "C."]] == ["(C)"] * 3
