"""REP task generator: every answer re-derived from the question text alone, by routes independent of the generator
(Python arithmetic on the parsed operations, brute force over permutations / assignments, forward chaining)."""
import itertools, random, re
import pytest
from hypothesis import given, settings, strategies as st
from reasoning_integrity.lines.trajectory.types import Trajectory
from reasoning_integrity.lines.trajectory.tasks import (rep_problems, make_arithmetic, make_ordering, make_syllogism,
                                                    make_location, RepTask, answer_matches)


def solve_arithmetic(q: str) -> int:
    v = int(re.match(r"Start with (\d+)\.", q).group(1))
    for verb, n in re.findall(r"(Add|Subtract|Multiply by) (\d+)\.", q):
        n = int(n)
        if verb == "Add": v = v + n
        elif verb == "Subtract": v = v - n
        else: v = v * n
    return v


def solve_ordering(q: str) -> list[str]:
    "All names at the asked rank over every permutation consistent with the comparisons."
    people = re.match(r"(.*) are compared\.", q).group(1).replace(" and ", ", ").split(", ")
    rels = re.findall(r"(\w+) is (\w+er) than (\w+)", q)
    ask = re.search(r"Who is the (second )?(\w+)\?", q)
    more_words = {"taller", "older", "faster"}
    top_words = {"tallest", "oldest", "fastest"}
    sols = set()
    for perm in itertools.permutations(people):  # perm[0] = the most
        pos = {p: i for i, p in enumerate(perm)}
        if all((pos[a] < pos[b]) if r in more_words else (pos[a] > pos[b]) for a, r, b in rels):
            idx = (1 if ask.group(1) else 0) if ask.group(2) in top_words else len(people) - 1
            sols.add(perm[idx])
    return sorted(sols)


def solve_syllogism(q: str) -> str:
    x, target = re.search(r"Is (\w+) a (\w+)\?", q).groups()
    start = re.search(rf"{x} is a (\w+)\.", q).group(1)
    sing = lambda w: w[:-2] if w.endswith("xes") else w[:-1]
    alls = [(sing(a), sing(b)) for a, b in re.findall(r"All (\w+) are (\w+)", q)]
    nos = [(sing(a), sing(b)) for a, b in re.findall(r"No (\w+) are (\w+)", q)]
    member, changed = {start}, True
    while changed:  # forward chaining to a fixed point
        changed = False
        for a, b in alls:
            if a in member and b not in member: member.add(b); changed = True
    if target in member: return "yes"
    if any(a in member and b == target for a, b in nos): return "no"
    return "unknown"


def solve_location(q: str) -> list[str]:
    people = re.match(r"(.*) are each in a different room", q).group(1).replace(" and ", ", ").split(", ")
    rooms = re.findall(r"the (\w+)", re.search(r"room: (.*?)\.", q).group(1))
    clues = [(p, neg == "", r) for p, neg, r in re.findall(r"(\w+) is (not )?in the (\w+)", q)]
    target = re.search(r"Where is (\w+)\?", q).group(1)
    sols = set()
    for perm in itertools.permutations(rooms):
        where = dict(zip(people, perm))
        if all((where[p] == r) == pos for p, pos, r in clues): sols.add(where[target])
    return sorted(sols)


def check(t: RepTask):
    if t.kind == "arithmetic": assert str(solve_arithmetic(t.question)) == t.answer
    elif t.kind == "ordering": assert solve_ordering(t.question) == [t.answer]
    elif t.kind == "syllogism": assert solve_syllogism(t.question) == t.answer
    elif t.kind == "location": assert solve_location(t.question) == [t.answer]
    else: raise AssertionError(t.kind)


def check_path(t: RepTask):
    T = t.reference_trajectory()
    assert len(T) == len(t.steps) >= 3  # B_0 and at least two more: k in {1..N-1} exists
    assert T.answer == t.answer
    assert all(not s.flags for s in T.states)  # the reference states are valid as written
    last = T.states[-1]
    top = last.hypotheses[max(range(len(last.confidence)), key=last.confidence.__getitem__)]
    assert answer_matches(top, t.answer, t.choices)
    assert Trajectory.from_json(T.to_json()).to_dict() == T.to_dict()
    if t.kind == "arithmetic":  # every equation in the path holds
        for s in T.states[1:]:
            a, op, b, c = re.fullmatch(r"(\d+) ([-+*]) (\d+) = (\d+)", s.constraints[0]).groups()
            a, b, c = int(a), int(b), int(c)
            assert {"+": a + b, "-": a - b, "*": a * b}[op] == c and s.hypotheses == [str(c)]
    if t.kind in ("ordering", "location"):  # candidate sets shrink monotonically to the answer
        for s0, s1 in zip(T.states, T.states[1:]):
            assert set(s1.hypotheses) <= set(s0.hypotheses)


def test_default_set():
    ps = rep_problems(50, seed=0)
    assert len(ps) == 50 and len({p.id for p in ps}) == 50
    assert {p.kind for p in ps} == {"arithmetic", "ordering", "syllogism", "location"}
    for p in ps: check(p); check_path(p)
    assert [p.to_dict() for p in rep_problems(50, seed=0)] == [p.to_dict() for p in ps]  # deterministic


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**9), st.sampled_from([make_arithmetic, make_ordering, make_syllogism, make_location]))
def test_any_seed(seed, maker):
    t = RepTask(id="x", seed=str(seed), **maker(random.Random(seed)))
    check(t); check_path(t)


def test_solvers_can_fail():
    "The independent solvers disagree with a wrong answer (so the checks above are not vacuous)."
    t = rep_problems(4, seed=3)
    bad = [RepTask(**{**p.to_dict(), "answer": "nobody"}) for p in t]
    for p in bad:
        with pytest.raises(AssertionError): check(p)
