"""What a user scoring their own runs sees (issue 40): `inspect score --scorer reasoning_integrity/integrity` through
inspect's real CLI and metric path, where a signal undefined for a sample is left out and counted, never reported as
0.000; `ri score`'s one meaning of "scored"; messages that say what to do.

The logs are written by inspect_ai's own writer (`tests/test_hostile_logs._eval_log`); `inspect score` re-scores them
in a subprocess, as a user would, and the scored log is read back with inspect_ai's reader.
"""
import math, os, subprocess, sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration   # inspect_ai's real CLI, many fresh processes: make test-integration

from test_hostile_logs import _eval_log

BIN = Path(sys.executable).parent


def _rescore(log: Path, out: Path):
    r = subprocess.run([str(BIN / "inspect"), "score", str(log), "--scorer", "reasoning_integrity/integrity",
                        "-S", "signals=length,verified_computation", "--action", "append", "--output-file", str(out),
                        "--overwrite", "--display", "plain"],   # README's flags: no question asked, no terminal needed
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300, cwd=out.parent,
                       env={**os.environ, "TOKENIZERS_PARALLELISM": "false"})
    assert r.returncode == 0 and out.is_file(), r.stdout[-2000:] + r.stderr[-3000:]
    from inspect_ai.log import read_eval_log
    log = read_eval_log(str(out))
    res = {s.name: s for s in log.results.scores if s.scorer == "integrity"}
    return r.stdout + r.stderr, res, log


def _undefined(v):
    return v is None or (isinstance(v, float) and math.isnan(v))


@pytest.mark.parametrize("chains,n_defined,mean", [
    (["so the answer is five", "we think\n\nit is 6", "it is four"], 0, None),          # no computation anywhere
    (["so the answer is five", "2 + 3 = 5\n\nso 5", "3 + 3 = 7\n\nso 7"], 2, 0.5),     # two checkable, one false
])
def test_inspect_score_reports_undefined_as_undefined(tmp_path, chains, n_defined, mean):
    text, res, log = _rescore(_eval_log(tmp_path / "log.eval", chains), tmp_path / "scored.eval")
    assert "Unable to convert value to float" not in text, text[-2000:]
    vc, ln = res["verified_computation"], res["length"]
    assert (vc.scored_samples, vc.unscored_samples) == (n_defined, 3 - n_defined)
    assert (ln.scored_samples, ln.unscored_samples) == (3, 0)
    m = {k.split("/")[-1]: v.value for k, v in vc.metrics.items()}
    if mean is None: assert _undefined(m["defined_mean"]) and _undefined(m["defined_stderr"]), m
    else: assert m["defined_mean"] == pytest.approx(mean) and m["defined_stderr"] == pytest.approx(0.5), m
    for s in log.samples:                                                         # per sample: undefined stays undefined
        v = s.scores["integrity"].value["verified_computation"]
        assert _undefined(v) or v in (0.0, 1.0)


def test_ri_score_has_one_meaning_of_scored_and_its_headline_explains_itself(tmp_path):
    import json
    import pandas as pd
    from test_hostile_logs import _ri
    rows = [dict(id="a", chain="so the answer is five", correct=False), dict(id="b", chain="2 + 3 = 5\n\nso 5", correct=True),
            dict(id="c", chain="we think\n\nit is 6", correct=False)]
    (tmp_path / "log.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    rc, out, err, _, _ = _ri("score", "log.jsonl", "--name", "u", "--signals", "length,verified_computation",
                             "--reports-dir", str(tmp_path / "reports"), "--no-progress", cwd=tmp_path)
    assert rc == 0, err[-2000:]
    d = tmp_path / "reports" / "scored" / "u" / "tables"
    cov = pd.read_csv(d / "coverage.csv", keep_default_na=False).set_index("signal")
    summ = pd.read_csv(d / "summary.csv").set_index("signal")
    assert (cov.loc["verified_computation", "n_run"], cov.loc["verified_computation", "n_scored"]) == (3, 1)
    assert cov.loc["verified_computation", "skipped"] == "2 undefined (the signal gives no value)"
    assert (cov.n_scored == summ.n.reindex(cov.index)).all()                     # one definition in both tables
    assert "accuracy (the log's own verdicts): 1 of 3 right" in out
    head = next(l for l in out.splitlines() if l.strip().startswith("signal"))
    assert head.split()[-2:] == ["n_wrong", "n_right"]


def test_messages_say_what_the_names_are(tmp_path):
    import json
    from test_hostile_logs import _ri
    for name, ids in (("x", ["a1", "a2", "a3", "a4"]), ("y", ["b1", "b2", "b3"])):
        (tmp_path / f"{name}.jsonl").write_text("".join(json.dumps(dict(id=i, chain="1 + 1 = 2\n\nso 2")) + "\n" for i in ids))
        rc, out, err, _, _ = _ri("score", f"{name}.jsonl", "--signals", "length,step_support", "--reports-dir", str(tmp_path / "reports"),
                                 "--no-progress", cwd=tmp_path)
        assert rc == 0 and "Loading weights" not in err and "it/s]" not in err, err[-2000:]   # --no-progress: no model bars
    rc, out, err, _, _ = _ri("compare", "x", "y", "--reports-dir", str(tmp_path / "reports"), cwd=tmp_path)
    assert rc == 2 and "share no sample id" in err and "ids of x: 'a1', 'a2', 'a3'; of y: 'b1', 'b2', 'b3'" in err, err[-2000:]
    rc, out, err, _, _ = _ri("score", "x.jsonl", "--signals", "lenght", "--reports-dir", str(tmp_path / "reports"), cwd=tmp_path)
    assert rc == 2 and "'lenght': did you mean 'length'?" in err


def _fake_run(d: Path, items):
    import json
    import pandas as pd
    (d / "tables").mkdir(parents=True)
    pd.DataFrame(items).to_csv(d / "tables" / "items.csv", index=False)
    (d / "run.json").write_text(json.dumps(dict(kind="scored", name=d.name, input=d.name)))
    return d


def test_compare_adjusts_for_length_and_tests_accuracy_with_mcnemar(tmp_path):
    import numpy as np
    from scipy.stats import binomtest
    from reasoning_integrity.logs.score import compare_runs
    rng = np.random.default_rng(0)
    n = 60
    la = rng.integers(40, 80, n); lb = la * 3                                  # B's chains: three times as long, nothing else
    noise_a, noise_b = rng.normal(0, 0.5, n), rng.normal(0, 0.5, n)
    ca = rng.random(n) < 0.5
    cb = ca.copy(); cb[:12] = ~cb[:12]                                         # 12 discordant verdicts
    A = _fake_run(tmp_path / "a", dict(id=[f"q{i}" for i in range(n)], n_steps=3, correct=ca, length=la,
                                       embedding_drift=0.01 * la + noise_a, step_support=noise_a))
    B = _fake_run(tmp_path / "b", dict(id=[f"q{i}" for i in range(n)], n_steps=3, correct=cb, length=lb,
                                       embedding_drift=0.01 * lb + noise_b, step_support=noise_b + 1.0))
    t = compare_runs(A, B, n_boot=2000, name=False).table.set_index("signal")
    ed, ss = t.loc["embedding_drift"], t.loc["step_support"]
    assert ed["diff"] > 1.0 and ed.p_adj < 0.01                                # raw: a large, "significant" shift ...
    assert abs(ed.diff_length_adjusted) < 0.35 and ed.p_adj_length_adjusted > 0.05   # ... that length explains
    C = _fake_run(tmp_path / "c2", dict(id=[f"q{i}" for i in range(n)], n_steps=3, correct=ca, length=la,     # same lengths,
                                        embedding_drift=0.01 * la + noise_b, step_support=noise_b + 1.0))     # content shifted
    ss = compare_runs(A, C, n_boot=2000, name=False).table.set_index("signal").loc["step_support"]
    assert 0.7 < ss.diff_length_adjusted < 1.3 and ss.p_adj_length_adjusted < 0.01   # a shift beyond length survives it
    b, c = int((ca & ~cb).sum()), int((~ca & cb).sum())
    assert t.loc["correct", "test"] == "mcnemar_exact"
    assert t.loc["correct", "p"] == pytest.approx(binomtest(b, b + c, 0.5).pvalue, rel=1e-9)   # exact McNemar = binomial on discordant
    assert set(t.family) == {"apart", "signals"} and t.loc["correct", "family"] == t.loc["length", "family"] == "apart"
    small = compare_runs(_fake_run(tmp_path / "c", dict(id=["x", "y", "z"], n_steps=1, length=[1, 2, 3], step_support=[0.1, 0.2, 0.3])),
                         _fake_run(tmp_path / "d", dict(id=["x", "y", "z"], n_steps=1, length=[1, 2, 3], step_support=[0.2, 0.3, 0.5])),
                         n_boot=200, name=False)
    assert small.notes and "no paired test can reach p < 0.01" in small.notes[0]


def test_degenerate_chains_are_counted(tmp_path):
    import pandas as pd
    from test_hostile_logs import _ri
    log = _eval_log(tmp_path / "d.eval", ["What is 0 + 3? What is 0 + 3? What is 0 + 3?", "What is 1 + 3?",
                                          "We add 2 and 3.\n\n2 + 3 = 5, so 5", "3 + 3 = 6 and then", "  \n "],
                    stop_reasons={"s3": "max_tokens"})
    rc, out, err, _, _ = _ri("score", str(log), "--name", "g", "--signals", "length", "--reports-dir", str(tmp_path / "reports"),
                             "--no-progress", cwd=tmp_path)
    assert rc == 0, err[-2000:]
    t = pd.read_csv(tmp_path / "reports" / "scored" / "g" / "tables" / "problems.csv")
    assert dict(zip(t.kind, t.n)) == {"repeats_prompt": 2, "cut_at_token_limit": 1, "no_chain": 1}
    assert "4 samples of d.eval (inspect) scored; 4 problems" in out        # counted, and scored all the same (the empty one cannot be)
    warned = [l for l in err.splitlines() if l.startswith("warning: sample ")]   # and warned, one plain line a sample
    assert sorted(warned) == sorted(["warning: sample s0: the chain is the question echoed",
                                     "warning: sample s1: the chain is the question echoed",
                                     "warning: sample s3: generation stopped at the token limit",
                                     "warning: sample s4: no assistant text"]), err[-2000:]


def test_given_steps_that_are_all_blank_are_an_empty_chain(tmp_path):
    import json, warnings
    from reasoning_integrity.logs.score import score_log, DegenerateChainWarning
    rows = [dict(id="a", question="q", steps=["2 + 3 = 5", "so 5"]), dict(id="b", question="q", steps=["", "   "])]
    (tmp_path / "s.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = score_log(tmp_path / "s.jsonl", signals="length", reports_dir=tmp_path / "reports", progress=False, n_boot=50)
    assert list(r.items.id) == ["a"] and dict(zip(r.problems.kind, r.problems.n)) == {"no_chain": 1}
    assert [str(x.message) for x in w if x.category is DegenerateChainWarning] == ["sample b: its given steps are all blank"]


def test_runs_of_two_tools_pair_by_question(tmp_path):
    import json
    from test_hostile_logs import _ri
    qs = ["What is 2 + 3?", "What is 4 + 4?", "What is 9 - 1?"]
    (tmp_path / "a.jsonl").write_text("".join(json.dumps(dict(id=f"q{i}", question=q, chain="1 + 1 = 2\n\nso 2")) + "\n" for i, q in enumerate(qs)))
    (tmp_path / "b.jsonl").write_text("".join(json.dumps(dict(id=str(i), question=q + "  ", chain="1 + 1 = 3\n\nso 3")) + "\n"
                                              for i, q in enumerate(reversed(qs))))
    for n in ("a", "b"):
        rc, out, err, _, _ = _ri("score", f"{n}.jsonl", "--signals", "length,verified_computation", "--reports-dir", str(tmp_path / "reports"),
                                 "--no-progress", cwd=tmp_path)
        assert rc == 0, err[-2000:]
    rc, out, err, _, _ = _ri("compare", "a", "b", "--reports-dir", str(tmp_path / "reports"), cwd=tmp_path)
    assert rc == 2 and "share no sample id" in err
    rc, out, err, _, _ = _ri("compare", "a", "b", "--id-field", "question", "--n-boot", "100", "--reports-dir", str(tmp_path / "reports"),
                             cwd=tmp_path)
    assert rc == 0 and "3 samples matched by question" in out, err[-2000:]
    rc, out, err, _, _ = _ri("compare", "a", "b", "--id-field", "nope", "--reports-dir", str(tmp_path / "reports"), cwd=tmp_path)
    assert rc == 2 and "no column 'nope' to pair samples by" in err


def _two_runs(tmp_path):
    "Two scored runs of the same six sums: B states a false sum in q1 (by 1) and q4 (by 40); the rest are the same."
    import json
    from test_hostile_logs import _ri
    for name, bad in (("a", {}), ("b", {1: 1, 4: 40})):
        rows = []
        for i in range(6):
            x, y = i + 2, i + 5
            s = x + y + bad.get(i, 0)
            rows.append(dict(id=f"q{i}", question=f"What is {x} + {y}?", chain=f"We add {x} and {y}.\n\n{x} + {y} = {s}.\n\nSo {s}.",
                             correct=s == x + y))
        (tmp_path / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        rc, out, err, _, _ = _ri("score", f"{name}.jsonl", "--signals", "length,verified_computation,computation_error",
                                 "--reports-dir", str(tmp_path / "reports"), "--no-progress", cwd=tmp_path)
        assert rc == 0, err[-2000:]
    rc, out, err, _, _ = _ri("compare", "a", "b", "--n-boot", "200", "--reports-dir", str(tmp_path / "reports"), cwd=tmp_path)
    assert rc == 0, err[-2000:]
    return tmp_path / "reports" / "scored" / "a-vs-b"


def test_ri_view_shows_two_runs_side_by_side_largest_difference_first(tmp_path):
    import html, json, re
    from test_hostile_logs import _ri
    d = _two_runs(tmp_path)
    recs = [json.loads(l) for l in (d / "records" / "pairs.jsonl").read_text().splitlines()]
    # each pair ranked by its largest difference in units of that signal's spread over the pairs (population sd):
    # q4 states 6 + 9 = 55, computation_error 0 -> 40/55 = 0.7273, which is 2.73 sd; q1 states 3 + 6 = 10, computation_error
    # 0 -> 0.1 (0.38 sd) and verified_computation 0 -> 1 (1 / sqrt(2/6 - 1/9) = 2.12 sd); the four alike follow, by id
    assert [r["id"] for r in recs] == ["q4", "q1", "q0", "q2", "q3", "q5"]
    assert recs[0]["fields"]["largest difference"] == "computation_error: 0 → 0.7273"
    assert recs[1]["fields"]["largest difference"] == "verified_computation: 0 → 1"
    assert list(recs[0]["sides"]) == ["A: a", "B: b"] and recs[0]["question"] == "What is 6 + 9?"
    a, b = recs[0]["sides"].values()
    assert (a["correct"], b["correct"]) == (True, False) and b["steps"][1] == "6 + 9 = 55."
    assert b["step_signals"]["verified_computation"] == [None, 1.0, None] and recs[0]["fields"]["Δ verified_computation"] == 1.0
    rc, out, err, _, _ = _ri("view", "a-vs-b", "--no-open", "--reports-dir", str(tmp_path / "reports"), cwd=tmp_path)
    assert rc == 0, err[-2000:]
    page = (d / "explorer.html").read_text()
    assert page.count('class="ri-sides"') == 6 and page.count('class="ri-side"') == 12
    nav = re.findall(r'<a href="#item-\d+" data-text="[^"]*">([^<]*)</a>', page)
    assert [html.unescape(t) for t in nav[:3]] == ["✓→✗ q4 · computation_error: 0 → 0.7273", "✓→✗ q1 · verified_computation: 0 → 1",
                                                   "✓→✓ q0 · none (every signal the same)"]
    # a comparison written before it kept records says what writes them again, not `ri reproduce`
    for f in (d / "records").iterdir(): f.unlink()
    (d / "explorer.html").unlink()
    rc, out, err, _, _ = _ri("view", "a-vs-b", "--no-open", "--reports-dir", str(tmp_path / "reports"), cwd=tmp_path)
    assert rc == 2 and "a-vs-b is a comparison of two scored runs; `ri compare a b --name a-vs-b` writes it again" in err, err
    assert "ri reproduce" not in err
    rc, out, err, _, _ = _ri("view", "nonexistent", "--no-open", "--reports-dir", str(tmp_path / "reports"), cwd=tmp_path)
    assert rc == 2 and "'nonexistent' is not an experiment" in err and "ri score LOG --name nonexistent" in err, err
