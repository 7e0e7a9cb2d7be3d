"""Property tests of the belief-state parser: model text is untrusted, so no input may raise, and every
well-formed trajectory must round-trip through the JSON the prompts ask for."""
import json
import math
import random

import pytest

from hypothesis import given, settings, strategies as st

from reasoning_integrity.core.text import ParseProblem, MAX_VALUES
from reasoning_integrity.lines.trajectory.types import BeliefState, Trajectory, parse_trajectory, TRAJECTORY_SCHEMA

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
    from reasoning_integrity.core.text import normalize_text
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


# Each kind of malformed belief-state text named in the issue yields parse problems, never an exception ------------

def _kinds(text, **kw):
    T, problems = parse_trajectory(text, **kw)
    assert isinstance(T, Trajectory) and all(isinstance(p, ParseProblem) for p in problems)
    return T, {p.kind for p in problems}


def test_truncated_json():
    full = '{"steps": [{"hypotheses": ["a", "b"], "confidence": [0.5, 0.5], "constraints": ["c"]}], "answer": "a"}'
    for cut in range(1, len(full)):
        T, kinds = _kinds(full[:cut])
        assert kinds, full[:cut]
        if cut < len(full) - 1: assert "truncated_json" in kinds or "no_states" in kinds, full[:cut]
    T, kinds = _kinds("```json\n" + full[:40])  # an unclosed fence
    assert "truncated_json" in kinds and len(T) == 0


@settings(max_examples=100, deadline=None)
@given(st.lists(state_st, min_size=1, max_size=6), st.booleans(), st.data())
def test_truncated_output_keeps_complete_states(states, wrapped, data):
    """Cut anywhere, an output keeps exactly the states whose JSON is complete before the cut, and says so."""
    objs = [{"hypotheses": h, "confidence": u, "constraints": c} for h, u, c in states]
    full = json.dumps({"steps": objs, "answer": "a"} if wrapped else objs)
    cut = data.draw(st.integers(1, len(full) - 1))
    text = full[:cut]
    T, problems = parse_trajectory(text)
    kinds = [p.kind for p in problems]
    ends, pos = [], full.index("[") + 1  # end offset of each state object in `full`
    for o in objs:
        pos = full.index(json.dumps(o), pos) + len(json.dumps(o)); ends.append(pos)
    n_complete = sum(e <= cut for e in ends)
    assert len(T) == n_complete, (text, len(T), n_complete)
    assert [s.hypotheses for s in T] == [[x.strip() for x in h] for h, _, _ in states[:n_complete]]
    assert "truncated_json" in kinds
    assert kinds.count("salvaged_states") == (1 if n_complete else 0)
    if n_complete:
        assert f"kept the {n_complete} complete states" in next(p.message for p in problems if p.kind == "salvaged_states")
    else:
        assert "no_states" in kinds


def test_wrong_types():
    cases = {
        '{"hypotheses": "a", "confidence": [1], "answer": "a"}': "coerced_type",
        '{"hypotheses": ["a"], "confidence": "high", "answer": "a"}': "wrong_type",
        '{"hypotheses": ["a"], "confidence": [true], "answer": "a"}': "wrong_type",
        '{"hypotheses": ["a", "b"], "confidence": {"a": 1}, "answer": "a"}': "confidence_mismatch",
        '{"hypotheses": 7, "constraints": {"x": 1}, "answer": "a"}': "coerced_type",
        '{"hypotheses": null, "constraints": null}': "empty_state",
        '{"steps": [1, "two", null], "answer": "a"}': "wrong_type",
        '"just a string"': "no_states",
        '{"hypotheses": ["a"], "confidence": [%s], "answer": "a"}' % ("9" * 400): "confidence_invalid",
    }
    for text, kind in cases.items():
        T, kinds = _kinds(text)
        assert kind in kinds, (text[:60], kinds)
        for s in T: assert math.isclose(sum(s.confidence), 1.0) and min(s.confidence) >= 0


def test_probabilities_not_summing_to_one():
    for conf, expect in [([0.6, 0.6], [0.5, 0.5]), ([3, 1], [0.75, 0.25]), ([0, 0], [0.5, 0.5]),
                         ([-1, 1], [0.0, 1.0]), ([1e308, 1e308], [0.5, 0.5]), (["60%", "40%"], [0.6, 0.4])]:
        T, kinds = _kinds(json.dumps({"hypotheses": ["a", "b"], "confidence": conf, "answer": "a"}))
        assert len(T) == 1 and all(math.isclose(x, y) for x, y in zip(T[0].confidence, expect)), (conf, T[0].confidence)
        if sum(float(str(x).rstrip("%")) for x in conf) != (100 if isinstance(conf[0], str) else 1):
            assert kinds & {"confidence_normalised", "confidence_invalid", "confidence_zero"}, (conf, kinds)


def test_empty_output():
    for text in ["", "   \n\t", None]:
        T, kinds = _kinds(text)
        assert len(T) == 0 and "empty_output" in kinds


def test_python_literals_of_any_type():
    for text in ["{'hypotheses': ['a'], 'answer': {(1, 2): 3}}", "{'hypotheses': ['a'], 'note': {1, 2}}",
                 "{'hypotheses': {'a', 'b'}}", "{'hypotheses': [1+2j], 'confidence': [1+2j]}",
                 "{'hypotheses': b'ab'}", "{'hypotheses': [(1, 2)], 'confidence': (1,)}"]:
        _kinds(text)


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.floats() | st.integers() | st.complex_numbers() | words | st.binary(max_size=4),
                    lambda c: st.lists(c, max_size=3) | st.tuples(c, c) | st.frozensets(st.integers(), max_size=3)
                    | st.dictionaries(st.integers() | words | st.tuples(st.integers()), c, max_size=3), max_leaves=12),
       st.sampled_from(["hypotheses", "confidence", "constraints", "answer", "note", "steps"]))
def test_parse_never_raises_on_python_literals(value, key):
    _kinds(repr({"hypotheses": ["a"], key: value}))


ADVERSARIAL = {  # 5 MB each; the first MAX_CHARS (1 MB) are parsed
    "open_strings": '{"a":"' * 833_334,
    "open_lists": "[" * 5_000_000,
    "nested_closed": "[" * 2_500_000 + "]" * 2_500_000,
    "many_invalid_objects": "{x}" * 1_666_667,
    "many_small_objects": '{"a":1}' * 714_286,
    "many_states": '{"hypotheses":["a"],"confidence":[1],"constraints":[]}' * 89_286,
    "fences": '```json\n{"a":1}\n```' * 250_000,
    "unclosed_fence_then_space": "```" + " " * 5_000_000,  # a backtracking fence regex is quadratic here
    "unclosed_fence_then_newlines": "```json" + "\n" * 5_000_000,
    # output cut inside containers: the salvage of complete values before the cut must stay one pass
    "truncated_states_list": '{"steps": [' + '{"hypotheses": ["a"]},' * 227_273,
    "open_lists_of_objects": "[{}" * 1_666_667,
    "open_lists_of_lists": "[[1]" * 1_250_000,
    "open_objects_of_lists": '{"a":[1],"b":' * 384_616,
}


@pytest.mark.timeout(120)  # a hang guard, not a speed claim: a quadratic scan of 1 MB would take hours
def test_megabytes_of_adversarial_noise():
    rng = random.Random(0)
    cases = dict(ADVERSARIAL, random_brackets=''.join(rng.choice('{}[]"') for _ in range(5_000_000)))
    for name, text in cases.items():
        T, kinds = _kinds(text)
        assert "input_truncated" in kinds, name
        assert len(T) <= MAX_VALUES, name
        if name in ("many_invalid_objects", "many_small_objects", "many_states", "random_brackets", "truncated_states_list"):
            assert "too_many_values" in kinds, (name, kinds)  # decoding is bounded and the bound is reported


def test_deep_nesting():
    for d in (100, 990, 5000):
        for inner in ("[" * d + "]" * d, '{"a":' * d + "1" + "}" * d):
            for tmpl in ('{"hypotheses": [%s], "answer": "x"}', '{"hypotheses": ["a"], "answer": %s}',
                         '{"hypotheses": ["a"], "note": %s}', "%s"):
                _kinds(tmpl % inner)
