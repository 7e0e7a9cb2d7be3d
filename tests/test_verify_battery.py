"""The arithmetic verifier on the notation of the data (issue 43 §1): for each notation, 20 true and 20 false statements
(values computed here with Python's integers and Fractions, independently of the verifier), statements under test that
are not assertions, identities with letters (true ones generated and expanded by sympy: never flagged; false ones:
always caught), the evidence of a flag, and the `loop` signal."""
import random
from fractions import Fraction
import numpy as np
import pytest
import sympy
from reasoning_integrity.signals.verify import check_step, IDENTITY_POINTS, IDENTITY_SPAN, MAX_DEGREE

def _flag(s): return check_step(s).value   # 1: a false statement, 0: all checked ones true, NaN: nothing checked

def _cases(make, n=20, seed=0):
    "n (true statement, false statement) pairs from `make(rng) -> (text with {v}, right value, wrong value)`."
    rng, out = random.Random(seed), []
    while len(out) < n:
        text, good, bad = make(rng)
        if good != bad: out.append((text.replace("{v}", str(good)), text.replace("{v}", str(bad))))
    return out

def _fr(x:Fraction)->str: return f"\\frac{{{x.numerator}}}{{{x.denominator}}}" if x.denominator != 1 else str(x.numerator)
def _th(n:int, sep:str)->str: return f"{n:,}".replace(",", sep)

NOTATIONS = {
    "frac": lambda r: (lambda a, b, c, d: (f"$\\frac{{{a}}}{{{b}}} + \\frac{{{c}}}{{{d}}} = {{v}}$",
                       _fr(Fraction(a, b) + Fraction(c, d)), _fr(Fraction(a, b) + Fraction(c, d) + 1)))(*[r.randint(1, 12) for _ in range(4)]),
    "dfrac_tfrac": lambda r: (lambda a, b, k: (f"$\\dfrac{{{a}}}{{{b}}} \\cdot {k} = \\tfrac{{{{v}}}}{{{b}}}$", a * k, a * k + 1))(r.randint(1, 9), r.randint(2, 9), r.randint(2, 9)),
    "sqrt_n": lambda r: (lambda b, n: (f"$\\sqrt[{n}]{{{b ** n}}} = {{v}}$", b, b + 1))(r.randint(2, 30), r.randint(2, 4)),
    "cdot_times": lambda r: (lambda a, b, c: (f"$${a} \\cdot {b} \\times {c} = {{v}}$$", a * b * c, a * b * c + r.randint(1, 9)))(r.randint(2, 99), r.randint(2, 99), r.randint(2, 9)),
    "div": lambda r: (lambda a, b: (f"\\({a * b} \\div {b} = {{v}}\\)", a, a - 1))(r.randint(2, 500), r.randint(2, 40)),
    "braced_power": lambda r: (lambda a, e: (f"$ {a}^{{{e}}} = {{v}} $", a ** e, a ** e - 1))(r.randint(2, 12), r.randint(2, 9)),
    "left_right": lambda r: (lambda a, b, c: (f"\\[ \\left( {a} + {b} \\right) \\times {c} = {{v}} \\]", (a + b) * c, (a + b) * c + c))(r.randint(1, 50), r.randint(1, 50), r.randint(2, 9)),
    "brace_grouping": lambda r: (lambda a, b, c: (f"$2^{{{a} + {b}}} - {c} = {{v}}$", 2 ** (a + b) - c, 2 ** (a + b) + c))(r.randint(1, 6), r.randint(1, 6), r.randint(1, 9)),
    "thousands_braced_comma": lambda r: (lambda a, b: (f"${_th(a, '{,}')} + {_th(b, '{,}')} = {{v}}$", _th(a + b, "{,}"), _th(a + b + 1000, "{,}")))(r.randint(1000, 99999), r.randint(1000, 99999)),
    "thousands_thin_space": lambda r: (lambda a, k: (f"${_th(a, chr(92) + ',')} \\times {k} = {{v}}$", _th(a * k, "\\,"), _th(a * k + 1000, "\\,")))(r.randint(1000, 99999), r.randint(2, 9)),
    "mixed_numbers": lambda r: (lambda w, k: (f"${w}\\frac{{1}}{{2}} \\times {2 * k} = {{v}}$", (2 * w + 1) * k, (2 * w + 1) * k + 1))(r.randint(1, 20), r.randint(1, 9)),
    "latex_percent": lambda r: (lambda p, b: (f"${p}\\% \\times {b} = {{v}}$", _fr(Fraction(p * b, 100)), _fr(Fraction(p * b, 100) + 2)))(r.randint(1, 99), r.randint(1, 400)),
    "boxed": lambda r: (lambda a, b: (f"so the answer is $\\boxed{{{a} + {b} = {{v}}}}$", a + b, a + b + 10))(r.randint(1, 999), r.randint(1, 999)),
    "percent_of_is": lambda r: (lambda p, b: (f"{p}% of {b} is {{v}}.", p * b // 100, p * b // 100 + 3))(r.choice([10, 20, 25, 50, 75]), 20 * r.randint(1, 50)),
    "ratio": lambda r: (lambda a, b, k: (f"The ratio {a}:{b} equals {{v}}:{b * k}.", a * k, a * k + 1))(r.randint(1, 9), r.randint(2, 9), r.randint(2, 9)),
    "chain": lambda r: (lambda a, b: (f"$ {a} + {b} = {a + b} = {{v}} $", a + b, a + b + 2))(r.randint(1, 99), r.randint(1, 99)),
    "approx": lambda r: (lambda n: (f"$\\sqrt{{{n}}} \\approx {{v}}$", f"{n ** 0.5:.2f}", f"{n ** 0.5 + 0.3:.2f}"))(r.choice([k for k in range(2, 99) if int(k ** 0.5) ** 2 != k])),
    "inequality": lambda r: (lambda a, b: (f"Since {a} {{v}} {b}, we stop.", "<", ">"))(r.randint(1, 500), r.randint(501, 999)),
    "equation_solving": lambda r: (lambda a, b, x: (f"${a}x + {b} = {a * x + b}$, so ${a}x = {a * x}$, so $x = {{v}}$", x, x + 1))(r.randint(2, 9), r.randint(1, 50), r.randint(-20, 20)),
    "prose_inequality": lambda r: (lambda a, b: (f"Since {a} is {{v}} than {b}, we stop.", "less", "greater"))(r.randint(1, 500), r.randint(501, 999)),
}

@pytest.mark.parametrize("notation", sorted(NOTATIONS))
def test_notation_battery(notation):
    cases = _cases(NOTATIONS[notation])
    assert len(cases) == 20
    missed = [t for t, _ in cases if _flag(t) != 0] + [f for _, f in cases if _flag(f) != 1]
    assert not missed, f"{notation}: {missed[:4]}"

UNDER_TEST = ["Suppose 3 + 4 = 8, then the sum is odd.", "Check whether 5 \\times 5 = 24.", "If 7 \\times 8 = 54, the total would be odd.",
              "Is 12 \\times 12 = 140? No.", "Let's test whether 17 \\cdot 3 = 41.", "Assume 2^{10} = 1000 for a rough estimate.",
              "5*5 = 24, which is not correct; 5*5 = 25.", "We try 9 \\times 9 = 80, which is false.",
              "we get 0 + (15 - 1) * 71 = 999, which simplifies to 14 * 71 = 994. Since 994 is less than 999, no term equals 999.",
              "Assuming 6 + 7 = 14 would contradict the parity.", "What if 3^3 = 30?", "If x = 3 then 2x = 7."]

@pytest.mark.parametrize("step", UNDER_TEST)
def test_statements_under_test_are_not_flagged(step):
    assert _flag(step) != 1, [(s.lhs, s.rhs, s.status, s.kind) for s in check_step(step).statements]

def test_asserted_after_a_comma_is_checked():
    assert _flag("If we add the two bags, 3 + 4 = 8.") == 1   # the clause after the comma asserts it

def _identities(n:int, seed:int=0):
    "n true identities `y = <product form> = <expanded form>` in x (and z), printed by sympy's LaTeX printer."
    x, z = sympy.symbols("x z")
    rng, out = random.Random(seed), []
    while len(out) < n:
        f = sympy.Integer(1)
        for _ in range(rng.randint(2, 3)):
            f *= (rng.randint(1, 5) * rng.choice([x, z]) + rng.randint(-9, 9)) ** rng.randint(1, 2)
        e = sympy.expand(f)
        if e.free_symbols != f.free_symbols or f == e: continue
        v = rng.choice(sorted(f.free_symbols, key=str))   # a wrong expansion in the same letters
        out.append((sympy.latex(f), sympy.latex(e), sympy.latex(e + rng.choice([1, v, -2 * v, v ** 2]))))
    return out

def test_identity_battery_no_false_positives():
    ids = _identities(220)
    got = [check_step(f"$y = {a} = {b}$").statements[-1] for a, b, _ in ids]
    assert all(s.rule == "identity" for s in got), [s.parsed for s in got if s.rule != "identity"][:3]
    assert sum(s.status == "false" for s in got) == 0, [s.parsed for s in got if s.status == "false"][:3]

def test_identity_battery_catches_false_ones():
    ids = _identities(220, seed=1)
    got = [check_step(f"$y = {a} = {c}$").statements[-1] for a, _, c in ids]
    missed = [s.parsed for s in got if s.status != "false"]
    assert not missed, missed[:3]
    # Schwartz–Zippel: a false identity of total degree d passes each point with probability <= d/|S|
    assert (MAX_DEGREE / (2 * IDENTITY_SPAN + 1)) ** IDENTITY_POINTS < 1e-14

@pytest.mark.parametrize("cue", ["Expanding, ", "Factoring, we get ", "Rewriting: ", "By the identity "])
def test_lone_rewrites_announced_as_such_are_identities(cue):
    # the same 220 + 220 identities written alone after a rewrite word, product form on either side
    true, false = _identities(220), _identities(220, seed=1)
    # \( \): a `$` before a digit is read as a currency sign outside a math span
    got = [check_step(f"{cue}\\({a} = {b}\\).").statements[-1] for a, b, _ in true[:110]] + \
          [check_step(f"{cue}\\({b} = {a}\\).").statements[-1] for a, b, _ in true[110:]]
    assert all(s.rule == "identity" and s.status == "true" for s in got), [s.parsed for s in got if s.status != "true"][:3]
    got = [check_step(f"{cue}\\({a} = {c}\\).").statements[-1] for a, _, c in false]
    assert all(s.status == "false" for s in got), [s.parsed for s in got if s.status != "false"][:3]
    # unannounced, or announced as an equation, it is a condition (nothing says it is not one to solve)
    for a, _, c in false[:40]:
        for t in (f"We have \\({a} = {c}\\).", f"Expanding both sides, \\({a} = {c}\\).", f"{cue}the equation \\({a} = {c}\\)."):
            assert _flag(t) != 1, t

def test_the_issue_examples():
    assert _flag("$y = (x+1)^2 = x^2+1$") == 1 and _flag("$y = (x+1)^2 = x^2+2x+1$") == 0
    assert _flag("Expanding, $(x+1)^2 = x^2+1$.") == 1 and _flag("Expanding, $(x+1)^2 = x^2+2x+1$.") == 0
    assert _flag("20% of 50 is 15") == 1 and _flag("20% of 50 is 10") == 0
    ev = [s for s in check_step("491 × 1001 = 491091").statements if s.status == "false"][0]
    assert (ev.rule, ev.evidence, ev.parsed) == ("exact", "left side is 491491", "(491 × 1001) = 491091")
    idv = [s for s in check_step("$y = (x+1)^2 = x^2+1$").statements if s.status == "false"][0]
    assert idv.rule == "identity" and idv.evidence.startswith("at x = ") and "left side is" in idv.evidence

def test_equations_and_conditions_are_not_identities():
    for s in ["$2x + 3 = x + 5$", "$r^2 = (h - 2)^2 + k^2 = (h - 4)^2 + k^2$", "$a^2b + c = b^2c + a = c^2a + b$",
              "$f(x) = x^2 = f(2x)$", "$e^{i\\pi} + 1 = 0$", "$(1 + \\omega)^3 = 1 + 3\\omega + 3\\omega^2 + \\omega^3 = 2 + 3\\omega$"]:
        assert _flag(s) != 1, s

def test_loop_signal_flags_repeats_of_any_earlier_step():
    from reasoning_integrity.signals.chains import Chain
    from reasoning_integrity.signals.registry import SIGNALS, SignalModels
    block = ["We add 3 and 4 to get 7.", "Then we double it to get 14.", "So the answer is 14."]
    c = Chain(id="loop", steps=block * 4)
    loop = SIGNALS["loop"].fn([c], SignalModels())[0]
    rr = SIGNALS["redundant_reasoning"].fn([c], SignalModels())[0]
    assert np.isnan(loop[0]) and loop[1:].tolist() == [0, 0] + [1] * 9
    assert np.nansum(rr) == 0   # Eq. 9 compares each step with the one before only: the repeated block passes it
    assert np.nansum(SIGNALS["loop"].fn([Chain(id="ok", steps=block)], SignalModels())[0]) == 0

def test_every_flag_shows_its_evidence():
    "ri.score_chain prints it, the explorer's records (and so `ri view`) carry it as a field."
    from reasoning_integrity.run.api import score_chain
    from reasoning_integrity.signals.chains import Chain
    from reasoning_integrity.signals.report import chain_item
    steps = ["We need 491 × 1001.", "491 × 1001 = 491091", "So the answer is 491091."]
    cs = score_chain(steps, signals=["verified_computation"])
    assert cs.evidence == [dict(step=1, statement="491 × 1001 = 491091", parsed="(491 × 1001) = 491091", rule="exact",
                                evidence="left side is 491491")]
    assert "step 1: 491 × 1001 = 491091 (exact): left side is 491491" in cs.to_text(120)
    assert "left side is 491491" in cs._repr_html_()
    it = chain_item(Chain(id="c", steps=steps), "processbench", {})
    assert it["fields"]["verifier_evidence"] == "step 1: 491 × 1001 = 491091 (exact): left side is 491491"
    assert "verifier_evidence" not in chain_item(Chain(id="d", steps=["2 + 2 = 4"]), "processbench", {})["fields"]

def test_solving_compares_one_derivation_only():
    ok = ["$x - 8 = 12$ or $x - 8 = -12$, so $x = 20$.", "For $x + 1 = 3$ we get 2; for the second, $x + 2 = 9$.",
          "$2x + 3 = 7$. Suppose $x = 5$.", "$x = 1$, then $x = 2$ in the next case."]
    assert [_flag(s) for s in ok] == [0.0 if check_step(s).n_checkable else float("nan") for s in ok] or all(_flag(s) != 1 for s in ok)
    assert all(_flag(s) != 1 for s in ok), [s for s in ok if _flag(s) == 1]
    st = [s for s in check_step("$3(x - 1) = 9$, so $3x - 3 = 9$, $3x = 12$, $x = 5$").statements if s.status == "false"]
    assert [(s.rule, s.evidence) for s in st] == [("solving", "3x = 12 gives x = 4; this equation gives x = 5")]

def test_the_hand_labelled_sample_is_found_in_the_repository_data_folder():
    "data/ is a data root (core.data.REPO_ROOT is the checkout): the report's target note reads the sample from there."
    from reasoning_integrity.core.data import REPO_ROOT
    from reasoning_integrity.signals.report import first_error_sample
    assert (REPO_ROOT / "settings.ini").is_file()
    s = first_error_sample()
    assert len(s) == 120 and (s.category == "false_computation").sum() == 32 and s.groupby("subset").size().tolist() == [30] * 4

def _trial_chain(r, wrong:bool, inline:bool):
    "A search over g for 19g + 17h = T (as ProcessBench's olympiad solutions write it), its last trial solved for h."
    g0, h0 = r.randint(1, 9), r.randint(1, 9)
    T, gs = 19 * g0 + 17 * h0, [g for g in range(1, 10) if g != g0][:2]
    h = (lambda s: f"\\( {s} \\)") if inline else (lambda s: s)
    parts = [f"Trying \\(g = {g}\\): \\[{19 * g} + 17h = {T}\\] \\[17h = {T - 19 * g}\\] This does not give an integer for \\(h\\)."
             for g in gs]
    v = h0 + 1 if wrong else h0
    parts.append(f"Let's try \\(g = {g0}\\): \\[{19 * g0} + 17h = {T}\\] \\[17h = {17 * h0}\\] Dividing both sides by 17, we find {h('h')} = {v}.")
    return " ".join(parts)

@pytest.mark.parametrize("inline", [False, True])
def test_solving_starts_again_at_each_trial(inline):
    "After a break (*for*, *or*) nothing is compared until a new trial starts; the root of the last trial is checked."
    r = random.Random(7)
    for _ in range(20):
        good, bad = _trial_chain(r, False, inline), _trial_chain(r, True, inline)
        assert _flag(good) != 1, good
        sb = [s for s in check_step(bad).statements if s.status == "false"]
        assert [s.rule for s in sb] == ["solving"], bad

def test_a_letter_alone_in_inline_math_continues_the_expression():
    "'150 + \\( x \\) = 500' is one equation (GSM8K solutions write the unknown alone in inline math); bullets are not."
    st = [s for s in check_step("we get: 150 + \\( x \\) = 500. Subtracting 150 from both sides: \\( x \\) = 350 - 150.").statements
          if s.status == "false"]
    assert [(s.rule, s.evidence) for s in st] == [("solving", "150 + \\( x = 500 gives x = 350; this equation gives x = 200")]
    assert _flag("we get: 150 + \\( x \\) = 500. Subtracting 150 from both sides: \\( x \\) = 500 - 150.") == 0
    assert _flag("the signs change at: - \\( x = -15 \\) - \\( x = -12 \\) - \\( x = -8 \\) - \\( x = 1 \\)") != 1
    assert _flag("So 4 × $\\frac{9}{4}$ = $\\frac{(4)(9)}{(4)(4)}$.") == 1   # the '$' closer before '=' too

def test_displays_that_open_with_equals_continue_the_chain():
    "`\\[ = A \\] \\[ = B \\]` is the chain = A = B: the link A = B is a rewrite, checked as an identity (true and false ones)."
    r = random.Random(11)
    for _ in range(20):
        a, b = r.randint(1, 9), r.randint(1, 9)
        good = f"Simplify: \\[ = (t + {a})(t - {b}) \\] \\[ = t^2 + {a - b}t - {a * b} \\]".replace("+ -", "- ")
        bad = good.replace(f"- {a * b} \\]", f"+ {a * b} \\]")
        assert [s.rule for s in check_step(good).statements if s.status == "true"] == ["identity"], good
        assert [s.rule for s in check_step(bad).statements if s.status == "false"] == ["identity"], bad

def test_an_opening_dollar_after_a_number_does_not_join_it():
    "Only a delimiter that closes math continues the run: in 'so 7 $\\times 2 = 15$' the '$' opens math, and 7 stays apart."
    assert [s.kind for s in check_step("so 7 $\\times 2 = 15$ and").statements] == ["context"]
    st = [s for s in check_step("we get 150 + $x^{1}$ = 500, so $x^{1}$ = 350 - 150").statements if s.status == "false"]
    assert [(s.rule, s.evidence) for s in st] == [("solving", "150 + $x^{1} = 500 gives x = 350; this equation gives x = 200")]   # a closing '$' still joins
