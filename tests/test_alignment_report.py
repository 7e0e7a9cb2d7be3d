"""`lines.alignment.report`: the records its builders return pass the explorer's schema check (`run.report.check_item`),
and the paired statistics it takes as callables give the same numbers as `signals.metrics` on constructed inputs."""
import json
from types import SimpleNamespace as NS

import numpy as np
import pandas as pd

from reasoning_integrity.lines.alignment import report as ar
from reasoning_integrity.lines.alignment.scos import ChainScorer
from reasoning_integrity.models.doubles import OverlapNLI
from reasoning_integrity.run.report import check_item
from reasoning_integrity.signals.metrics import paired_ci, perturbation_effect


class Emb:
    "One-hot of a sentence's first letter."
    def __call__(self, texts):
        v = np.zeros((len(texts), 26)); v[np.arange(len(texts)), [ord(t.lower()[0]) - 97 for t in texts]] = 1; return v


REFS = [["ants dig holes", "bees make honey", "so ants dig"], ["dogs run fast", "eels swim far", "so dogs run"],
        ["gnus eat grass", "hens lay eggs", "so gnus eat"]]
CHS = [["ants dig holes", "bees make honey", "so ants dig"], ["x marks it", "eels swim far", "so frogs hop"],
       ["gnus eat grass", "hens lay eggs", "so gnus eat"]]
PROBS = pd.DataFrame(dict(question=["Q0", "Q1", "Q2"], hint=["", "h", ""], choices=[["yes", "no"]] * 3, answer=[0, 1, 0],
                          pred=[0, 0, 7], output=["o0", "o1", "o2" * 3000]), index=["p", "q", "r"])


def _items():
    return pd.DataFrame(dict(pid=["p", "q", "r"], depth=[2, 2, 2], steps=REFS, chain=CHS, correct=[1, 0, 1], question=["Q"] * 3))


def test_logged_records_pass_the_schema_and_are_json():
    nli, emb, items = OverlapNLI(), Emb(), _items()
    S, St, So, Sa, Sx = ar.score_sets(nli, emb, items, items, {2: ("p", REFS[0])})
    shuf, shifted = ar.matched_vs_shuffled(items, items, S, St, [2], nli, emb, paired_ci, n_boot=50)
    cmp, cmp_scores = ar.nli_comparison(items, {"lexical": nli}, emb, n_boot=50)
    recs = ar.item_records(items, S, Sx, So, items, St, Sa, PROBS, PROBS, "exemplar (stand-in)", shifted, cmp_scores)
    rows = [check_item(r) for r in recs]
    assert [r["id"] for r in rows] == ["2hop/p", "2hop/q", "2hop/r"]
    assert rows[2]["prediction"] == "7"                                     # an index outside the choices is shown as is
    assert "cut: first 4000 of 6000 characters" in rows[2]["raw"]["GPT-3 output (QCM→ALE)"]
    assert "shifted reference: score coverage" in rows[0]["fields"]
    json.dumps(rows, ensure_ascii=False)
    assert len(shuf) == 8 and set(shuf.depth) == {2}


def test_perturbation_table_with_the_signals_statistics():
    nli, emb = OverlapNLI(), Emb()
    orig = [NS(id=f"sqa2/{p}", steps=list(r), reference=list(r), meta={"depth": 2}) for p, r in zip("pqr", REFS)]
    pert = [NS(id=f"{o.id}/neg", steps=[*o.steps[:-1], "zebras never yawn"], reference=o.reference,
               meta={"depth": 2, "source": o.id, "perturbation": {"op": "swap", "site": 2, "before": o.steps[-1],
                                                                  "after": "zebras never yawn", "seed": 0}}) for o in orig]
    Sp = ar.perturbation_scores(orig + pert, nli, emb)
    t = ar.perturbation_table(list(zip(orig, pert)), orig, Sp, ["swap"], perturbation_effect, n_boot=200)
    assert t.variant.tolist() == ar.PERTURBATION_VARIANTS
    cov = t.set_index("variant").loc["coverage"]
    want = perturbation_effect(Sp.loc[[o.id for o in orig], "coverage"].to_numpy(), Sp.loc[[p.id for p in pert], "coverage"].to_numpy(), -1, 200)
    assert cov.mean_change == want["mean_change"] and cov.mean_change < 0 and cov.share_ranked_above == 1.0
    recs = [check_item(r) for r in ar.perturbation_records(orig + pert, Sp, PROBS)]
    assert [r["fields"]["operator"] for r in recs] == ["none (original)"] * 3 + ["swap"] * 3
    assert "perturbation seed" not in recs[3]["fields"] and recs[3]["fields"]["perturbation after"] == "zebras never yawn"


def test_live_records_pass_the_schema():
    emb, sc = Emb(), ChainScorer(OverlapNLI(), Emb())
    g = pd.concat([pd.DataFrame(dict(pid=["p", "q"], depth=[2, 2], correct=[True, False], statements=CHS[:2])),
                   sc.score(REFS[:2], CHS[:2])], axis=1)
    gx = ar.exemplar_scores(g, {2: REFS[0]}, sc)
    C = g.assign(sample=-1, valid=True, n_steps=2, error=None, answer=["A", "Z"], ref=REFS[:2], problems=[[], []], text="t")
    sel = pd.DataFrame(dict(pid=["p"], sample=[-1], method=["Standard CoT"]))
    recs = [check_item(r) for r in ar.live_records(C, {}, {p: PROBS.loc[p] for p in "pq"}, sel, gx, 3)]
    assert [r["id"] for r in recs] == ["2hop/p/greedy", "2hop/q/greedy"]
    assert recs[1]["prediction"] == "Z" and "selected by (SCOS comparison)" not in recs[0]["fields"]   # not the SCOS depth
    assert recs[0]["fields"]["exemplar reference: score paper all_valid"] == gx.score_all_valid[0]
    assert len(ar.depth_table(g, gx, "toy", n_boot=20)) == 2 * 7
