"The REP answer checker on a battery of tricky answers, and the chance and majority baselines beside every accuracy."
import pytest
from reasoning_integrity.lines.trajectory.tasks import check_answer, answer_matches, chance, majority_answers, rep_problems, RepTask

ROOMS = ["attic", "cellar", "garden", "hall"]
NAMES = ["Ana", "Ben", "Cara", "Max"]
YN = ["yes", "no"]

BATTERY = [
    # (model answer, gold, choices, correct, verdict)
    ("cellar", "cellar", ROOMS, True, "exact"),
    ("The cellar.", "cellar", ROOMS, True, "exact"),
    ("Hana is in the cellar", "cellar", ROOMS, True, "stated"),
    ("Hana is not in the cellar", "cellar", ROOMS, False, "negated"),           # the false positive of the issue
    ("Hana isn't in the cellar", "cellar", ROOMS, False, "negated"),
    ("not the attic but the cellar", "cellar", ROOMS, True, "stated"),
    ("the cellar or the attic", "cellar", ROOMS, False, "multiple"),
    ("either the cellar or the hall", "cellar", ROOMS, False, "multiple"),
    ("probably the cellar", "cellar", ROOMS, True, "hedged"),
    ("maybe the cellar, maybe the attic", "cellar", ROOMS, False, "multiple"),
    ("The answer is 32", "32", None, True, "stated"),
    ("The answer is not 32", "32", None, False, "negated"),                    # the other false positive
    ("32, not 33", "32", None, True, "stated"),
    ("not 33 but 32", "32", None, True, "stated"),
    ("32 or 34", "32", None, False, "multiple"),
    ("between 30 and 34", "32", None, False, "multiple"),
    ("16 * 2 = 32", "32", None, True, "stated"),
    ("32.0", "32", None, True, "exact"),
    ("-32", "32", None, False, "wrong"),
    ("I think it is 32", "32", None, True, "hedged"),
    ("thirty-two", "32", None, False, "empty"),
    ("Cara is the tallest", "Cara", NAMES, True, "stated"),
    ("It isn't Max, it is Cara", "Cara", NAMES, True, "stated"),
    ("Not Cara", "Cara", NAMES, False, "negated"),
    ("Cara or Ben", "Cara", NAMES, False, "multiple"),
    ("Max", "Cara", NAMES, False, "wrong"),
    ("Yes.", "yes", YN, True, "exact"),
    ("No, Rex is not a tove", "no", YN, True, "stated"),
    ("no", "yes", YN, False, "wrong"),
    ("yes and no", "no", YN, False, "multiple"),
    ("I am not sure", "no", YN, False, "wrong"),
    ("", "yes", YN, False, "empty"),
    (None, "32", None, False, "empty"),
]


@pytest.mark.parametrize("pred,gold,choices,ok,verdict", BATTERY)
def test_battery(pred, gold, choices, ok, verdict):
    r = check_answer(pred, gold, choices)
    assert (r.correct, r.verdict) == (ok, verdict)
    assert answer_matches(pred, gold, choices) == ok


def test_hedges_can_be_refused():
    assert check_answer("probably the cellar", "cellar", ROOMS, accept_hedged=False).correct is False


def test_the_reference_answers_are_read_right():
    "Every generated problem's gold answer, written as a sentence, passes; a wrong choice does not."
    for t in rep_problems(60):
        assert check_answer(f"The answer is {t.answer}.", t.answer, t.choices).correct
        for c in t.choices:
            if c != t.answer: assert not check_answer(f"The answer is {c}.", t.answer, t.choices).correct


def test_chance_and_majority():
    ts = rep_problems(40)
    assert [chance(t) for t in ts if t.kind == "arithmetic"] == [0.0] * 10
    assert all(chance(t) == 1 / len(t.choices) for t in ts if t.choices)
    maj = majority_answers(ts)
    for t in ts:   # leave-one-out: the baseline never sees the problem it is scored on
        others = [u.answer.lower() for u in ts if u.kind == t.kind and u.id != t.id]
        assert maj[t.id] in others and others.count(maj[t.id]) == max(others.count(a) for a in others)
    one = [RepTask("a", "syllogism", "q", "yes", YN, [])]
    assert majority_answers(one) == {"a": None}
