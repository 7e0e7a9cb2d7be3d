"""The shortcut battery (issue 42 §4): every label-preserving edit keeps the numbers and the verifier's verdicts of the
step it edits, on real ProcessBench steps; units map every original step; the battery's verdicts on known detectors."""
import random, re
from fractions import Fraction

import numpy as np
import pytest

from reasoning_integrity.signals.shortcuts import SHORTCUT_EDITS, shortcut_chains, shortcut_targets, reformat_text
from reasoning_integrity.signals.verify import check_step
from reasoning_integrity.signals.validity import validity_sets

PRESERVING = [e for e, E in SHORTCUT_EDITS.items() if E.preserves]


@pytest.fixture(scope="module")
def pb():
    return validity_sets(pb_per_subset=12, sq_n=None, ptp_unannotated=0, rep_n=0, perturb_n=0)["labelled"]["processbench"]


_FRACTION = re.compile(r"(?<![\w.,/\\])(\d{1,3})/(\d{1,3})(?![\w,/]|\.\d)")


def _quantities(t):
    "The values a text states: each plain a/b as one number, the verifier's numbers of the rest."
    fr = {Fraction(int(a), int(b)) for a, b in _FRACTION.findall(t) if int(b)}
    return fr | {x.value for x in check_step(_FRACTION.sub(" ", t)).numbers}


def _vals(t):
    c = check_step(t)
    return _quantities(t) | set(c.values), c.n_false


@pytest.mark.parametrize("edit", PRESERVING)
def test_label_preserving_edits_keep_numbers_and_verdicts_on_real_steps(pb, edit):
    n = 0
    for c in pb:
        for kind, i in shortcut_targets(c, random.Random(c.id)):
            r = SHORTCUT_EDITS[edit].fn(list(c.steps), i, c.question)
            if r is None: continue
            new, units = r
            assert len(units) == c.n_steps and sorted({j for u in units for j in u}) == sorted(set(range(len(new))) - (
                {i} if edit == "insert_restatement" else set()))
            before, after = _vals(c.steps[i]), _vals(" ".join(new[j] for j in units[i]))
            assert _quantities(c.steps[i]) <= after[0], (edit, c.id, i)
            # a merged unit holds the next step too: its false statements are both steps' (the verifier reads each as before)
            expect = before[1] + (_vals(c.steps[i + 1])[1] if edit == "merge_steps" else 0)
            assert after[1] == expect, (edit, c.id, i, c.steps[i][:200])
            n += 1
    assert n >= 10, n                                       # the property was checked on real steps, not vacuously


@pytest.mark.parametrize("text", ["It costs 1,000,000 dollars.", "We take 0.125 of 64, that is 8.", "So 7/8 of 40 is 35.",
                                  "The year 1999 had 365 days.", "x = 3.75 and y = 12,345."])
def test_reformat_keeps_every_value(text):
    t = reformat_text(text)
    assert t != text
    assert _quantities(text) == _quantities(t)


def test_targets_and_edited_chains_never_train_and_keep_the_problem(pb):
    items = shortcut_chains(pb[:10])
    assert items and all(ed.meta["perturbation"]["shortcut"] and ed.first_error is None and ed.question == c.question
                         for c, ed, *_ in items)
    # label-changing edits only on sound steps; merge only when both steps are sound
    for c, ed, e, kind, i, units in items:
        if not SHORTCUT_EDITS[e].preserves: assert kind == "sound"
        if e == "merge_steps": assert c.first_error == -1 or i + 1 < c.first_error
