"""The arithmetic verifier and the content signals (issue 28, sections 1-2).

The battery (each notation true and false, each trap that only looks like arithmetic), hostile inputs that must finish
in bounded time without raising, hypothesis properties (random arithmetic is judged right, random text never raises,
random expression trees evaluate to what Fractions say), the precision/recall arithmetic, and the registry.
"""
import math, os, tempfile, time
from fractions import Fraction
import numpy as np
import pytest
from hypothesis import given, settings, HealthCheck, strategies as st

from reasoning_integrity.signals.verify import (check_step, check_chain, number_support, final_answer, answer_consistency,
                                                first_error_prf, verifier_prf, wilson, read_value, boxed, MAX_STEP_CHARS)

FAST = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None)

def verdicts(step):
    "True/False per checkable statement of the step, in order."
    return [s.status == "true" for s in check_step(step).statements if s.status in ("true", "false")]

# ---------------------------------------------------------------- the battery: each notation, true and false
BATTERY = {
    "inline ×": ("3 × 4 = 12", "3 × 4 = 13"), "ascii *": ("3 * 4 = 12", "3*4=11"), "x as times": ("4 x 5 = 20", "4 x 5 = 25"),
    "LaTeX dollars": ("$12 + 7 = 19$", "$12 + 7 = 18$"), "slash": ("12/4=3", "12/4=4"), "÷": ("12 ÷ 4 = 3", "12 ÷ 4 = 2"),
    r"\div": (r"\(12 \div 4 = 3\)", r"\(12 \div 4 = 6\)"),
    "thousands": ("1,000 + 2,500 = 3,500", "1,000 + 2,500 = 3,600"), "decimals": ("0.25 × 12 = 3", "0.25 × 12 = 3.5"),
    "percent": ("20% × 50 = 10", "20% × 50 = 12"), "percent of": ("20% of $50 = $10", "20% of $50 = $12"),
    r"\%": (r"\(25\% \times 80 = 20\)", r"\(25\% \times 80 = 25\)"),
    "currency": ("$4.20 + $9.45 + $1.35 = $15.00", "$4.20 + $9.45 + $1.35 = $14.99"), "euro": ("€5 × 3 = €15", "€5 × 3 = €20"),
    r"\frac": (r"\(\frac{1}{2} + \frac{1}{3} = \frac{5}{6}\)", r"\(\frac{1}{2} + \frac{1}{3} = \frac{2}{5}\)"),
    r"\dfrac": (r"\(\dfrac{3}{4} \cdot 8 = 6\)", r"\(\dfrac{3}{4} \cdot 8 = 5\)"),
    r"\cdot": (r"\(6 \cdot 7 = 42\)", r"\(6 \cdot 7 = 48\)"), r"\times": (r"\(6 \times 7 = 42\)", r"\(6 \times 7 = 43\)"),
    "^": (r"\(2^{10} = 1024\)", r"\(2^{10} = 1000\)"), "**": ("2**10 = 1024", "2**10 = 2048"), "²": ("12² = 144", "12² = 124"),
    r"\sqrt": (r"\(\sqrt{16} = 4\)", r"\(\sqrt{16} = 8\)"), r"\sqrt[n]": (r"\(\sqrt[3]{27} = 3\)", r"\(\sqrt[3]{27} = 9\)"),
    "√": ("√49 = 7", "√49 = 9"), "irrational ≈": (r"\(\sqrt{2} \approx 1.414\)", r"\(\sqrt{2} \approx 1.5\)"),
    "brackets": (r"\(\left(3 + 4\right) \times 2 = 14\)", r"\(\left(3 + 4\right) \times 2 = 11\)"),
    "unary minus": ("-3 + 10 = 7", "-3 + 10 = 13"), "rounding =": ("10/3 = 3.33", "10/3 = 3.5"), "≈": ("22/7 ≈ 3.14", "22/7 ≈ 3.5"),
    "about": ("100/7 = about 14.3", "100/7 = about 15.3"), "units": ("5 apples + 3 apples = 8 apples", "5 apples + 3 apples = 9 apples"),
    "rate unit": ("$194/meter × 2 meters = $388", "$194/meter × 2 meters = $398"),
    "factorial": (r"\(5! = 120\)", r"\(5! = 100\)"), "binomial": (r"\(\binom{5}{2} = 10\)", r"\(\binom{5}{2} = 20\)"),
    "tuple": (r"\(\left(\frac{3+7}{2}, \frac{4+10}{2}\right) = (5, 7)\)", r"\((2 \cdot 1994, 2) = (3998, 2)\)"),
    "multi-line": ("\\begin{align*} a &= 3 + 4 \\\\ &= 7 \\end{align*}", "\\begin{align*} a &= 3 + 4 \\\\ &= 8 \\end{align*}"),
    "repeating": (r"\(\frac{2}{3} = 0.\overline{6}\)", r"\(\frac{2}{3} = 0.\overline{5}\)"),
    "mixed number": ("2 1/2 × 4 = 10", "2 1/2 × 4 = 8"), "substitution": ("f(3) = 2(3) + 1 = 7", "f(3) = 2(3) + 1 = 8"),
}

@pytest.mark.parametrize("name", list(BATTERY))
def test_battery(name):
    true, false = BATTERY[name]
    assert verdicts(true) and all(verdicts(true)), (name, check_step(true).statements)
    assert False in verdicts(false), (name, check_step(false).statements)

def test_chained_equalities_are_adjacent_pairs():
    assert verdicts("2 + 3 = 5 = 10/2") == [True, True]
    assert verdicts("2 + 3 = 5 = 10/3") == [True, False]

def test_rounding_conventions():
    assert [verdicts(f"10/3 = {x}") for x in ("3.33", "3.3", "3.34", "3")] == [[True], [True], [False], [False]]
    assert [verdicts(f"2/3 = {x}") for x in ("0.67", "0.66", "0.65")] == [[True], [True], [False]]   # rounded or cut
    assert verdicts(r"\((2.8284)^2 = 8\)") == [True]                  # a rounded input (3+ decimals): compared as ≈
    assert verdicts("12/48 × 100 = 25%") == [True] and verdicts("12/48 = 25%") == [True]

# ---------------------------------------------------------------- traps: text that only looks like arithmetic
TRAPS = ["On 2023-05-01 and 5/12/2023 we met.", "It takes 3-4 days; read pages 10-12.", "1. First, add the numbers.",
         "The ratio is 3:2 = 6:4.", "We meet at 10:30 = half past ten.", "Call 555-123-4567.", "Use version 1.2.3 = latest.",
         "Let x = 5.", "x = 3 + 4", "x > 3 + 4 and 2 < 5", "3 + 4 ≠ 8", "1 hour = 60 minutes", "2 dozen = 24 eggs",
         "20% of the 50 + 5 = 15", "half of 18 = 9", "half of the 18 + 2 = 10", "1529 ÷ 6 = 254 remainder 5",
         "2250 ÷ 360 = 6 full rotations", "= $0.20 (20 cents)", "18 - 6 = 12 + 6 = 18", r"\(2 + \sqrt{1} = 1\) (False)",
         "The 1st - 5 = 6th", r"\(\gcd(41^2, 41 \cdot 43) = 41\)", r"\(4^6 = 6 \cdot 16 = 96 \pmod{25}\)",
         "Value = house - $22,800 = $53,200", "3 + 4 = 7!", r"\(\lfloor 7/2 \rfloor = 3\)", r"\(\log_2 8 = 3\)",
         r"\(\sin 30 = 0.5\)", "15 + 20% = 18", "6/2(3) = 1", "2 (to mom) + 2 (to sister) = 4", r"\(2_{10} + 3 = 11_2\)"]

@pytest.mark.parametrize("trap", TRAPS)
def test_traps_give_no_false_statement(trap):
    assert False not in verdicts(trap), check_step(trap).statements

def test_definitions_and_symbolic_are_not_checks():
    c = check_step("Total cost = 5 + 3 = 8, and x = 5, and 2x + 3 = 13.")
    assert c.n_checkable == 1 and c.n_false == 0
    assert {s.kind for s in c.statements} >= {"definition", "symbolic"}

# ---------------------------------------------------------------- hostile inputs: bounded time, no exception
HOSTILE = ["1+" * 60_000 + "1 = 2", "(" * 5000 + "1" + ")" * 5000 + " = 1", "9" * 5000 + " + 1 = 2",
           r"\(10^{1000000} + 1 = 2\)", r"\(9^{9^{9^{9}}} = 1\)", r"\((10^{1000})^{1000} = 1\)", r"\(\binom{100000}{50000} = 1\)",
           r"\(300! \times 300! \times 300! = 1\)", "1 = 1 + 0 = " * 3000 + "1", r"\frac{" * 5000, "\\text{" * 5000, "$" * 30_000,
           "=" * 100_000, "(" * 100_000, "-" * 100_000 + "1 = 1", "x" * 100_000, "1," * 50_000, "\\sqrt[" * 20_000,
           "2^" * 50_000 + "2 = 4", "0." + "\\overline{" * 10_000, "a" + "\n= 1 + 1" * 20_000, "½" * 100_000 + " = 1"]

@pytest.mark.timeout(60)
@pytest.mark.parametrize("i", range(len(HOSTILE)))
def test_hostile_inputs_finish_without_raising(i):
    h = HOSTILE[i]
    c = check_step(h)              # a hang guard only (the timeout above); speed is measured in benchmarks/fuzz_parsers.py
    number_support(h[:5000], [h])
    answer_consistency([h, h])
    assert c.n_checkable + c.n_skipped + c.n_unparsed >= len(c.statements)
    if len(h) > MAX_STEP_CHARS: assert "step_truncated" in [p.kind for p in c.problems]

def test_caps_are_counted_as_unparsed():
    assert check_step(r"\(10^{1000000} + 1 = 2\)").statements[0].kind == "too_large"
    assert check_step("(" * 60 + "1" + ")" * 60 + " = 1").statements[0].kind == "too_deep"
    c = check_step("1 = 1 + 0 = " * 300 + "1")
    assert c.n_unparsed > 0 and "statement_cap" in [p.kind for p in c.problems]

CANARY = os.path.join(tempfile.gettempdir(), "ri_verify_canary")

def test_model_text_is_never_executed():
    if os.path.exists(CANARY): os.remove(CANARY)
    for p in [f"__import__('os').system('touch {CANARY}') = 1 + 1", f"open('{CANARY}', 'w') = 2 * 3",
              f"(lambda: __import__('subprocess').run(['touch', '{CANARY}']))() = 4"]:
        check_step(p); read_value(p); number_support(p, [p]); answer_consistency([p, rf"\boxed{{{p}}}"])
    assert not os.path.exists(CANARY)

# ---------------------------------------------------------------- properties
OPS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "×": lambda a, b: a * b, "*": lambda a, b: a * b}

def fmt(n, thousands):
    return f"{n:,}" if thousands else str(n)

@FAST
@given(st.integers(0, 10**6), st.integers(0, 10**6), st.sampled_from(list(OPS)), st.integers(-1000, 1000), st.booleans(),
       st.sampled_from(["{}", "$ {} $", r"\( {} \)", "So, {} apples."]))
def test_random_arithmetic_is_judged_right(a, b, op, delta, thousands, wrap):
    c = OPS[op](a, b) + delta
    text = wrap.format(f"{fmt(a, thousands)} {op} {fmt(b, thousands)} = {fmt(c, thousands) if c >= 0 else c}")
    assert verdicts(text) == [delta == 0], text

@FAST
@given(st.integers(1, 10**4), st.integers(1, 10**4), st.integers(1, 4))
def test_random_division_rounding(a, b, k):
    v = Fraction(a, b)
    shown = f"{float(v):.{k}f}"
    assert verdicts(f"{a}/{b} = {shown}") == [True]       # printed to k places by Python: rounded
    wrong = Fraction(shown) + Fraction(3, 10 ** k)
    assert verdicts(f"{a}/{b} = {float(wrong):.{k}f}") == [False]

def exprs(depth=3):
    "Random expression trees over small integers, as (text, Fraction value); divisions by zero are avoided."
    leaf = st.integers(0, 50).map(lambda n: (str(n), Fraction(n)))
    def extend(children):
        def combine(pair, op):
            (ta, va), (tb, vb) = pair
            if op == "/" and vb == 0: return (f"({ta} + {tb})", va + vb)
            v = {"+": va + vb, "-": va - vb, "*": va * vb, "/": va / vb if vb else va}[op]
            return (f"({ta} {op} {tb})" if op != "/" else rf"\frac{{{ta}}}{{{tb}}}", v)
        return st.builds(combine, st.tuples(children, children), st.sampled_from("+-*/"))
    return st.recursive(leaf, extend, max_leaves=8)

@FAST
@given(exprs())
def test_expression_trees_evaluate_exactly(e):
    text, v = e
    rhs = str(v.numerator) if v.denominator == 1 else rf"\frac{{{v.numerator}}}{{{v.denominator}}}"
    out = verdicts(rf"\( {text} = {rhs} \)")
    if text.isdigit(): assert out == []                       # a number = a number: not a computation
    else:
        assert out == [True], (text, rhs, check_step(rf"\( {text} = {rhs} \)").statements)
        assert verdicts(rf"\( {text} = {v.numerator + 1}{'' if v.denominator == 1 else '/' + str(v.denominator)} \)") == [False]

@FAST
@given(st.text(max_size=400), st.text(max_size=200))
def test_random_text_never_raises(step, question):
    c = check_step(step)
    assert c.n_checkable == sum(s.status in ("true", "false") for s in c.statements)
    assert c.n_false <= c.n_checkable and (c.value in (0.0, 1.0) or math.isnan(c.value))
    s = number_support(question, [step, step])
    assert all(x.n_unsupported <= x.n_numbers for x in s)
    a = answer_consistency([question, step])
    assert a in (0.0, 1.0) or math.isnan(a)
    final_answer([step]); boxed(step); read_value(step)

MATHY = st.text(alphabet="0123456789+-*/^()=.,%$ \\{}[]xa!fracsqtimesdotbx\n", max_size=300)

@FAST
@given(MATHY)
def test_random_math_text_never_raises(step):
    c = check_step(step)
    assert all(0.0 <= s.rel_error <= 2.0 for s in c.statements)

# ---------------------------------------------------------------- numbers from nowhere, the answer
def test_number_support():
    q = "Tom has 3 boxes of 12 pencils. He gives away 20% of them."
    steps = ["3 × 12 = 36 pencils.", "20% of 36 = 0.2 × 36 = 7.2, so about 7.", "He keeps 36 - 7 = 29, plus 5 he found: 34."]
    assert [s.unsupported for s in number_support(q, steps)] == [[], [], ["5", "34"]]
    assert number_support("Half of eighteen birds fly.", ["18 / 2 = 9 birds."])[0].n_unsupported == 0

def test_answer_consistency():
    assert answer_consistency(["36 - 6 = 30.", r"\boxed{30}"]) == 0.0
    assert answer_consistency(["36 - 6 = 30.", r"\boxed{31}"]) == 1.0
    assert math.isnan(answer_consistency(["no numbers", r"\boxed{5}"]))
    assert math.isnan(answer_consistency(["3 + 4 = 7"], answer="(B) red"))   # a choice: undetermined

# ---------------------------------------------------------------- precision / recall
def test_first_error_prf_by_hand():
    T = first_error_prf([[0, 1, 1], [0, 0], [1, float("nan")]], [1, 0, -1], ["a", "a", "b"]).set_index("subset")
    assert T.loc["all", ["steps", "flagged", "tp", "positives"]].tolist() == [5, 2, 1, 2]
    assert T.loc["all", ["precision", "recall"]].tolist() == [0.5, 0.5]
    p, lo, hi = wilson(7, 9)
    assert abs(lo - 0.4526) < 1e-3 and abs(hi - 0.9368) < 1e-3

@FAST
@given(st.lists(st.tuples(st.lists(st.booleans(), min_size=1, max_size=8), st.integers(-1, 7)), min_size=1, max_size=20))
def test_prf_is_a_proportion_inside_its_interval(sols):
    flags = [f for f, _ in sols]; fe = [min(e, len(f) - 1) for f, e in sols]
    T = first_error_prf(flags, fe).set_index("subset").loc["all"]
    for m in ("precision", "recall"):
        if not math.isnan(T[m]): assert T[f"{m}_lo"] - 1e-12 <= T[m] <= T[f"{m}_hi"] + 1e-12 and 0 <= T[m] <= 1

def test_verifier_prf():
    T = verifier_prf([["3 + 4 = 8", "ok"], ["2 + 2 = 4", "5 × 5 = 24"]], [0, -1]).set_index("subset").loc["all"]
    assert (T.flagged, T.tp, T.positives, T.steps, T.coverage) == (2, 1, 1, 3, 1.0)

# ---------------------------------------------------------------- the registry
def test_content_signals_are_registered_and_computed():
    import reasoning_integrity.signals.content  # noqa: F401  (registers the family)
    from reasoning_integrity.signals.registry import SIGNALS, compute_signals
    from reasoning_integrity.signals.chains import Chain
    names = ["verified_computation", "verified_computation_any", "computation_error", "unsupported_numbers",
             "unsupported_share", "answer_consistency"]
    assert all(SIGNALS[n].family == "content" and SIGNALS[n].higher == "wrong" for n in names)
    ch = Chain("t/1", ["2 + 48 = 50.", "50 + 4450 = 3500. \\boxed{3500}"], "2 and 48 and 4450.", dataset="t")
    V, cov = compute_signals([ch], names)
    v = V.set_index(["signal", "step"]).value
    assert v["verified_computation", 0] == 0 and v["verified_computation", 1] == 1 and v["verified_computation", -1] == 1
    assert v["unsupported_numbers", 1] == 1 and v["answer_consistency", -1] == 0
    assert cov.n_scored.tolist() == [1] * len(names)
