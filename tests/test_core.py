"""Property tests of the belief-state parser: model text is untrusted, so no input may raise, and every
well-formed trajectory must round-trip through the JSON the prompts ask for."""
import json
import math

from hypothesis import given, settings, strategies as st

from reasoning_integrity.core import BeliefState, Trajectory, parse_trajectory, ParseProblem, TRAJECTORY_SCHEMA

words = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=12)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_parse_never_raises_on_text(text):
    T, problems = parse_trajectory(text)
    assert isinstance(T, Trajectory)
    assert all(isinstance(p, ParseProblem) for p in problems)
    if len(T) == 0:
        assert problems, "an output with no states must say why"


json_values = st.recursive(st.none() | st.booleans() | st.floats(allow_nan=False) | st.integers() | words,
                           lambda c: st.lists(c, max_size=4) | st.dictionaries(words, c, max_size=4), max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(json_values, st.sampled_from(["", "hypotheses", "confidence", "constraints", "steps", "answer"]))
def test_parse_never_raises_on_json(value, key):
    obj = {key: value} if key else value
    text = "noise " + json.dumps(obj)
    for cut in (len(text), len(text) // 2):  # also truncated
        T, problems = parse_trajectory(text[:cut])
        for s in T:
            assert all(p >= 0 for p in s.confidence)
            if s.hypotheses:
                assert math.isclose(sum(s.confidence), 1.0, abs_tol=1e-9)


def _distinct(xs):
    from reasoning_integrity.core import normalize_text
    seen, out = set(), []
    for x in xs:
        k = normalize_text(x)
        if k and k not in seen: seen.add(k); out.append(x)
    return out


state_st = st.builds(
    lambda hs, ws, cs: (hs, [w / sum(ws[:len(hs)]) for w in ws[:len(hs)]], cs),
    st.lists(st.text(alphabet="abcdefgh xyz=0123456789", min_size=1, max_size=10), min_size=1, max_size=4).map(_distinct).filter(bool),
    st.lists(st.integers(1, 9), min_size=4, max_size=4),
    st.lists(st.text(alphabet="abc <>=123", min_size=1, max_size=10), max_size=3),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(state_st, min_size=1, max_size=6), st.text(alphabet="abc123", min_size=1, max_size=5))
def test_schema_round_trip(states, answer):
    obj = {"steps": [{"hypotheses": h, "confidence": u, "constraints": c} for h, u, c in states], "answer": answer}
    import jsonschema
    jsonschema.validate(obj, TRAJECTORY_SCHEMA)
    T, problems = parse_trajectory("```json\n" + json.dumps(obj) + "\n```")
    kinds = {p.kind for p in problems}
    assert kinds <= {"confidence_normalised"}, kinds  # float rounding may put a sum a hair off 1
    assert T.answer == answer and len(T) == len(states)
    for s, (h, u, c) in zip(T, states):
        assert s.hypotheses == [x.strip() for x in h]
        assert all(math.isclose(a, b, abs_tol=1e-9) for a, b in zip(s.confidence, u))
    assert Trajectory.from_json(T.to_json()) == T


def test_megabytes_of_noise():
    noise = ('{"hypotheses": ["a"' * 50_000) + ("]" * 100_000) + ("x" * 2_000_000)
    T, problems = parse_trajectory(noise)
    assert {"input_truncated"} <= {p.kind for p in problems}
    assert len(T) == 0 or all(isinstance(s, BeliefState) for s in T)
