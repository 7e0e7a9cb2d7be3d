"""Each REP perturbation operator produces a state that contradicts the original in the intended way, checked against
the task's ground truth by independent means (arithmetic, brute force, the hidden assignment)."""
import itertools, json, random, re
from hypothesis import given, settings, strategies as st
from reasoning_integrity.lines.trajectory.types import BeliefState
from reasoning_integrity.lines.trajectory.tasks import rep_problems, make_arithmetic, make_ordering, make_location, RepTask
from reasoning_integrity.lines.trajectory.perturb import (perturb, apply_perturbation, PerturbationSpec, change_number,
                                                       flip_relation, negate_premise, swap_confidence,
                                                       negate_hypothesis, PERTURBATIONS)

TASKS = rep_problems(40, seed=7)
MORE = {"taller", "older", "faster"}


def mid(t):
    T = t.reference_trajectory()
    return T.states[T.N // 2]


def argmax(s): return max(range(len(s.confidence)), key=s.confidence.__getitem__)


def test_change_number_breaks_the_equation():
    for t in [t for t in TASKS if t.kind == "arithmetic"]:
        s = mid(t)
        p, spec = perturb(s, t.kind, seed=t.id)
        assert spec.name == "change_number"
        a, op, b, c = re.fullmatch(r"(\d+) ([-+*]) (\d+) = (-?\d+)", p.constraints[0]).groups()
        assert {"+": int(a) + int(b), "-": int(a) - int(b), "*": int(a) * int(b)}[op] != int(c)  # equation false
        assert p.hypotheses != s.hypotheses and 1 <= abs(int(p.hypotheses[0]) - int(s.hypotheses[0])) <= 3
        assert p.confidence == s.confidence  # only the number moved


def consistent_orders(people, pairs):
    return [o for o in itertools.permutations(people)
            if all(o.index(a) < o.index(b) for a, b in pairs)]


def as_pair(text, more):
    a, r, b = re.search(r"(\w+) is (\w+) than (\w+)", text).groups()
    return (a, b) if r == more else (b, a)  # (higher, lower)


def test_flip_relation_contradicts_the_premises():
    for t in [t for t in TASKS if t.kind == "ordering"]:
        s = mid(t)
        p, spec = perturb(s, t.kind, seed=t.id)
        assert spec.name == "flip_relation"
        more, order = t.data["more"], t.data["order"]
        orig, new = as_pair(s.constraints[0], more), as_pair(p.constraints[0], more)
        assert new == orig[::-1]  # the converse
        assert order.index(new[0]) > order.index(new[1])  # false in the hidden order
        premises = [as_pair(c, more) for c in re.findall(r"\w+ is \w+er than \w+", t.question)]
        assert consistent_orders(t.data["people"], premises)  # the problem is satisfiable ...
        assert not consistent_orders(t.data["people"], premises + [new])  # ... and not with the flipped relation


def test_negate_premise_location_is_false_in_the_hidden_assignment():
    for t in [t for t in TASKS if t.kind == "location"]:
        s = mid(t)
        p, spec = perturb(s, t.kind, seed=t.id)
        assert spec.name == "negate_premise"
        m = re.fullmatch(r"(\w+) is (not )?in the (\w+)", p.constraints[0])
        person, neg, room = m.groups()
        truth = t.data["where"][person] == room
        assert truth == (neg is not None)  # the perturbed clue says the opposite of the truth
        assert re.fullmatch(r"(\w+) is (not )?in the (\w+)", s.constraints[0]).group(2) != neg


def test_negate_premise_syllogism_denies_a_derived_fact():
    for t in [t for t in TASKS if t.kind == "syllogism"]:
        T = t.reference_trajectory()
        for s in T.states[1:-1]:  # intermediate derived memberships 'X is a C', true by the chain
            p = negate_premise(s, 0)
            assert p.constraints[0] == s.constraints[0].replace(" is a ", " is not a ")
        links = [f"All {a}s are {b}s" for _, a, b in t.data["links"][:1]]
        assert negate_premise(BeliefState(["yes"], [1.0], links), 0).constraints[0].startswith("Some ")


def test_swap_confidence_changes_the_favoured_answer():
    for t in TASKS:
        for s in t.reference_trajectory().states:
            plan = PERTURBATIONS["swap_confidence"][0](s, random.Random(0), t.kind, choices=t.choices)
            if plan is None:
                assert len(set(s.confidence)) == 1  # only a uniform state is left alone
                continue
            p = swap_confidence(s, **plan)
            assert p.hypotheses[argmax(p)] != s.hypotheses[argmax(s)]
            assert sorted(p.confidence) == sorted(s.confidence + ([0.0] if "add" in plan else []))


def test_negate_hypothesis():
    s = BeliefState(["Cara", "Ana"], [0.7, 0.3])
    assert negate_hypothesis(s, 0).hypotheses == ["not Cara", "Ana"]


def test_every_default_state_is_changed_and_replayable():
    for t in rep_problems(50):
        T = t.reference_trajectory()
        for k in range(1, T.N):
            s = T.states[k]
            p, spec = perturb(s, t.kind, seed=f"{t.id}-{k}", choices=t.choices)
            assert p.to_dict() != s.to_dict()
            spec2 = PerturbationSpec.from_dict(json.loads(json.dumps(spec.to_dict())))
            assert apply_perturbation(s, spec2).to_dict() == p.to_dict()


@settings(max_examples=40, deadline=None)
@given(st.text(max_size=40), st.lists(st.text(max_size=20), max_size=3), st.sampled_from(
    ["arithmetic", "ordering", "syllogism", "location"]))
def test_any_model_state_gets_a_change(h, cons, kind):
    "Model-written states of any shape get some perturbation that changes them."
    s = BeliefState([h or "x"], [1.0], cons)
    p, spec = perturb(s, kind, seed=0)
    assert p.to_dict() != s.to_dict() and spec.name in PERTURBATIONS
