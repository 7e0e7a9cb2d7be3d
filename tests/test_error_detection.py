"Long-CoT error detection: metrics, critic-answer parsing and loaders (hand-checkable values and properties)."
import json, math
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from reasoning_integrity.lines.long_cot.metrics import (sample_prf, detection_scores, drop_beyond_max, zscore_predict,
                                                        zscore_threshold, hit_rate_at_k, processbench_scores,
                                                        first_below, best_f1_threshold)
from reasoning_integrity.lines.long_cot.critic import parse_section_list, parse_first_error
from reasoning_integrity.lines.long_cot.deltabench import load_deltabench, section_stats, DeltaSample


# --- per-sample and aggregate F1 on constructed predictions -------------------------------------------------------
def test_per_sample_prf():
    r = sample_prf({3, 5, 9}, {3, 7})            # TP 1, FP 2, FN 1
    assert (r.tp, r.fp, r.fn) == (1, 2, 1)
    assert math.isclose(r.precision, 1 / 3) and math.isclose(r.recall, 1 / 2) and math.isclose(r.f1, 0.4)

def test_macro_micro():
    s = detection_scores([{1, 2}, set(), {6}], [{2}, {4, 5}, {6}])
    assert math.isclose(s["macro_f1"], 5 / 9)    # (2/3 + 0 + 1) / 3
    assert math.isclose(s["micro_f1"], 4 / 7)    # TP 2, FP 1, FN 2

def test_drop_beyond_max():
    assert drop_beyond_max({1, 4, 9}, {2, 4}) == {1, 4}
    assert math.isclose(sample_prf({3, 5, 9}, {3, 7}, drop_beyond=True).f1, 0.5)
    assert math.isclose(sample_prf({3, 5, 9}, {3, 7}, drop_beyond=False).f1, 0.4)

# --- μ − σ rule and HitRate@k on constructed scores ---------------------------------------------------------------
def test_zscore_rule():
    assert math.isclose(zscore_threshold([0.9, 0.8, 0.9, 0.2]), 0.7 - math.sqrt(0.085))
    assert zscore_predict([0.9, 0.8, 0.9, 0.2]) == [4]
    assert zscore_predict([0.5, 0.5]) == []

def test_hitrate():
    S, G = [[0.9, 0.1, 0.5], [0.2, 0.8], [0.3, 0.3]], [{3}, {1}, set()]
    assert hit_rate_at_k(S, G, 1) == 0.5 and hit_rate_at_k(S, G, 2) == 1.0

# --- ProcessBench ------------------------------------------------------------------------------------------------
def test_processbench_f1():
    r = processbench_scores([1, 0, -1, 3], [1, 2, -1, -1])
    assert (r["acc_error"], r["acc_correct"], r["f1"]) == (0.5, 0.5, 0.5)
    r = processbench_scores([2, None, -1], [2, 1, -1])
    assert math.isclose(r["f1"], 2 * 0.5 * 1 / 1.5)

def test_best_f1_threshold():
    t, f = best_f1_threshold([[0.9, 0.2, 0.8], [0.9, 0.7]], [1, -1])
    assert math.isclose(t, 0.45) and f == 1.0
    assert first_below([0.9, 0.2, 0.8], t) == 1 and first_below([0.9, 0.7], t) == -1

# --- properties ----------------------------------------------------------------------------------------------------
sets = st.sets(st.integers(1, 12), max_size=6)

@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(sets, sets), min_size=1, max_size=8))
def test_f1_bounds_and_perfect(pairs):
    preds, golds = [p for p, _ in pairs], [g for _, g in pairs]
    for rule in ("official", "all_sections"):
        s = detection_scores(preds, golds, rule)
        # the official rule scores only samples with a gold section; nothing to score gives nan, never a number
        assert s["n"] == (sum(bool(g) for g in golds) if rule == "official" else len(golds))
        if s["n"]: assert 0 <= s["macro_f1"] <= 1 and 0 <= s["micro_f1"] <= 1
        else: assert math.isnan(s["macro_f1"])
        perfect = detection_scores(golds, golds, rule)["macro_f1"]
        assert perfect == 1.0 or (rule == "official" and not any(golds) and math.isnan(perfect))
    # dropping beyond the last gold section can only remove false positives: official F1 >= all_sections F1
    for p, g in zip(preds, golds):
        if g: assert detection_scores([p], [g])["macro_f1"] >= detection_scores([p], [g], "all_sections")["macro_f1"] - 1e-12

@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.floats(0, 1), min_size=1, max_size=10), min_size=1, max_size=6),
       st.lists(sets, min_size=6, max_size=6))
def test_hitrate_monotone_in_k(scores, golds):
    golds = golds[:len(scores)]
    hs = [hit_rate_at_k(scores, golds, k) for k in (1, 3, 5)]
    if not any(golds): assert all(math.isnan(h) for h in hs)
    else: assert hs[0] <= hs[1] <= hs[2]

@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-5, 5), min_size=1, max_size=20))
def test_zscore_flags_below_mean(scores):
    flagged = zscore_predict(scores)
    assert all(scores[i - 1] < np.mean(scores) + 1e-9 for i in flagged)
    assert len(flagged) < len(scores)

# --- critic-answer parsing: a battery of malformed answers, counted, never raised ------------------------------------
BATTERY = [
    ("3, 5, 7", {3, 5, 7}, []), ("Sections 2 and 8 are wrong.", {2, 8}, []), ("section 3 to 5", {3, 4, 5}, []),
    (" 4-6\nBecause section 9 repeats itself", {4, 5, 6}, []), ("None", set(), []), ("No errors found.", set(), []),
    ("[]", set(), []), ('{"error_sections": [2, "4-5"]}', {2, 4, 5}, []), (r"\boxed{6}", {6}, []),
    ("sections 9-4", {4, 5, 6, 7, 8, 9}, ["reversed_range"]), ("3, 5, 40", {3, 5}, ["out_of_range"]),
    ("sections 1-1000", None, ["range_too_wide", "no_numbers"]), ("", None, ["empty"]), (None, None, ["empty"]),
    (12, None, ["empty"]), ("I think it is fine overall but maybe", None, ["no_numbers"]),
    ('{"error_sections": "abc"', None, ["no_numbers"]), ("\x00\x01\ufffd", None, ["no_numbers"]),
    ("[" * 500, None, ["no_numbers"]),
]

@pytest.mark.parametrize("text,want,kinds", BATTERY)
def test_parse_section_list(text, want, kinds):
    r = parse_section_list(text, n_sections=30)
    assert r.sections == want
    assert sorted(p.kind for p in r.problems) == sorted(kinds)

def test_parse_failures_are_counted():
    answers = [t for t, _, _ in BATTERY]
    failed = sum(not parse_section_list(a, 30).ok for a in answers)
    assert failed == sum(w is None for _, w, _ in BATTERY) == 8

@given(st.text(max_size=200))
@settings(max_examples=300, deadline=None)
def test_parsers_never_raise(text):
    r = parse_section_list(text, 20)
    assert r.sections is None or all(1 <= x <= 20 for x in r.sections)
    v, probs = parse_first_error(text, 6)
    assert (v is None) == bool(probs) and (v is None or -1 <= v < 6)

@pytest.mark.parametrize("text,want", [(r"\boxed{2}", 2), ("-1", -1), ("No error.", -1), ("paragraph 4", 4),
                                       ("7", None), ("", None), ("hmm", None)])
def test_parse_first_error(text, want):
    assert parse_first_error(text, n_steps=5)[0] == want

# --- loaders --------------------------------------------------------------------------------------------------------
def test_loader_jsonl_and_list_forms(tmp_path):
    rec = {"id": "x", "task_l1": "math", "sections_content": "section1: a\n\nsection2: b",
           "reason_error_section_numbers": [2], "reason_unuseful_section_numbers": [], "reflection_section_numbers": [2],
           "stragegy_shift_section_numbers": []}
    (tmp_path / "d.jsonl").write_text(json.dumps(rec) + "\n{oops\n" + json.dumps({**rec, "id": "y"}) + "\n")
    (tmp_path / "d.json").write_text(json.dumps([rec, {**rec, "id": "y"}]))
    a, va = load_deltabench(tmp_path / "d.jsonl")
    b, vb = load_deltabench(tmp_path / "d.json")
    assert [s.id for s in a] == [s.id for s in b] == ["x", "y"]
    assert va.kind.tolist() == ["invalid_json"] and not va.kept.any() and len(vb) == 0

def test_real_sample_and_stats():
    pytest.importorskip("reasoning_integrity.core.data")
    from reasoning_integrity.core.data import DataNotFound
    try: S, V = load_deltabench("sample")
    except DataNotFound: pytest.skip("DeltaBench sample not available (set RI_DATA_DIR)")
    assert len(S) == 10 and V.kind.tolist() == ["count_mismatch"]
    st_ = section_stats(S).set_index("domain").loc["all"]
    # 3 not-useful among 103 annotated sections; 14 of 16 reflections are neither erroneous nor not-useful
    assert math.isclose(st_.redundancy_rate, 3 / 103) and st_.reflections == 16
    assert math.isclose(st_.effective_reflection_rate, 14 / 16)

def test_full_source_downloads_from_known_url(tmp_path, monkeypatch):
    "source='full' goes through data_path with the canonical URL of data.KNOWN_URLS (download simulated, no network)."
    import reasoning_integrity.core.data as D
    from reasoning_integrity.lines.long_cot.deltabench import resolve_deltabench, DELTABENCH_FULL, DELTABENCH_URL
    assert DELTABENCH_URL == D.KNOWN_URLS[DELTABENCH_FULL]
    monkeypatch.setenv("RI_DATA_DIR", str(tmp_path / "empty")); monkeypatch.setenv("RI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(D, "REPO_ROOT", tmp_path / "norepo")
    rec = {"id": "z", "task_l1": "code", "sections_content": "section1: a", "reason_error_section_numbers": [1]}
    seen = []
    def fake(url, dest, timeout=30):
        seen.append(url); dest.parent.mkdir(parents=True, exist_ok=True); dest.write_text(json.dumps(rec) + "\n")
    monkeypatch.setattr(D, "_download", fake)
    path = resolve_deltabench("full")
    assert seen == [DELTABENCH_URL] and path.name == "Deltabench_v1.jsonl"
    S, V = load_deltabench(path)
    assert [s.id for s in S] == ["z"] and S[0].gold() == {1}
    assert resolve_deltabench("auto") == path          # once present, "auto" reads the full file, not the sample
    def offline(url, dest, timeout=30): raise OSError("offline")
    monkeypatch.setattr(D, "_download", offline); path.unlink()
    with pytest.raises(D.DataNotFound): resolve_deltabench("full")
