"""`signals.report` builds the metric_validity experiment's tables, notes and records (the record check,
`run.report.check_item`, is passed in), checked on constructed chains whose counts, labels and records can be read
off by hand. Thinness and layering are checked for every experiment and module by tests/test_notebook_style.py and
tests/test_layers.py."""
import json

import numpy as np
import pandas as pd

from reasoning_integrity.run.report import check_item
from reasoning_integrity.signals import report as vr
from reasoning_integrity.signals.chains import Chain

PB = [Chain("processbench/a", ["s0", "s1", "s2"], first_error=1, dataset="processbench", meta={"subset": "gsm8k"}),
      Chain("processbench/b", ["s0", "s1"], first_error=-1, dataset="processbench", meta={"subset": "math"})]
SQ = [Chain("scienceqa/c", ["a b", "c d"], reference=["a b", "e f"], correct=False, dataset="scienceqa")]


def test_limits_resolve_as_the_profiles_say():
    lim, plim = vr.signal_limits(1, 0)                          # quick: judge 1 chain per dataset, surprise all (0)
    assert lim["llm_judge"] == 1 and all(lim[s] is None for s in vr.SURPRISE) and plim is lim
    lim, plim = vr.signal_limits({"*": 4, "deltabench": 0}, 1, {"*": 1})
    assert lim["llm_judge"] == {"*": 4, "deltabench": None} and plim == {s: {"*": 1} for s in ["llm_judge", *vr.SURPRISE]}
    assert vr.none_if_0(0) is None and vr.none_if_0(None) is None and vr.none_if_0(3) == 3


def test_dataset_table_counts_by_hand():
    # solution a: steps 0, 1 labelled (1 wrong), step 2 after the error left out; b: 2 right steps; SQ: answered wrong
    t = vr.dataset_table({"processbench": PB, "scienceqa": SQ}, [PB[1], PB[1]]).set_index("dataset")
    assert t.loc["processbench", ["chains", "steps", "chains_wrong", "steps_labelled", "steps_wrong"]].tolist() == [2, 5, 1, 4, 1]
    assert t.loc["scienceqa", ["chains_labelled", "chains_wrong", "steps_labelled", "step_label"]].tolist() == [1, 1, 0, ""]
    assert t.sound_chains_perturbed.tolist() == [2, 0]
    assert vr.pipeline_note("full", 9) == "" and vr.pipeline_note("quick", 9).startswith("Quick profile (9 chains)")


def test_model_rows_and_processbench_f1():
    v = pd.DataFrame(dict(signal=["llm_judge", "length", vr.SURPRISE[0]], detail=[None, "x", None],
                          metric="first_error_f1", dataset=["processbench", "processbench/gsm8k", "scienceqa"], value=[.1, .2, .3]))
    m = vr.mark_model_rows(v, "toy")
    assert m.detail.tolist() == [" [smoke test: toy]", "x", " [toy, a stratified sample: coverage.csv]"]
    f1 = vr.processbench_f1_in_context(m)
    ours = f1[f1.kind == "signal (this run)"].set_index("model")
    assert ours.loc["llm_judge", "pooled"] == .1 and ours.loc["length", "gsm8k"] == .2 and "scienceqa" not in ours.columns
    cov = pd.DataFrame(dict(signal=["llm_judge", "llm_judge"], n_scored=[2, 7]))
    assert vr.heatmap_labels(cov) == {"llm_judge": "llm_judge (smoke test, ≤ 7 chains)"}


def test_notes_read_the_tables():
    val = pd.DataFrame(dict(signal="dtw_emb", metric="matched_minus_shuffled", dataset=["scienceqa/2-hop", "scienceqa/3-hop"],
                            value=[0.3, 0.1], ci_low=[0.1, -0.05], ci_high=[0.5, 0.2]))
    pert = pd.DataFrame(dict(signal="dtw_emb", dataset="scienceqa", operator=["replace_step"], agrees=[True]))
    (n,) = vr.content_notes(val, pert, ["dtw_emb"])
    assert "(does not separate at both depths)" in n and n.endswith("shuffle_words: no, replace_step: yes.")
    assert vr.model_notes(val, pd.DataFrame(dict(signal=[], dataset=[])), "none", False, {}) == []
    assert len(vr.run_notes("toy", 3)) == 3 and "passes this run: 3 " in vr.run_notes("toy", 3)[0]


def test_records_pass_the_schema_and_fit_the_budget():
    E = np.array([[0.9, 0.1], [0.2, 0.1]])
    F = pd.DataFrame(dict(H_ref=[np.zeros((2, 2))], H_truncate=[np.ones((2, 2))], E_mr=[E], E_rm=[E.T]))
    frames = vr.alignment_frames({("alignment", 8, (vr.chain_key(SQ[0]),)): F})
    vals = {"processbench/a": ({"length": [1.0, 2.0, 3.0]}, {"length": 3.0})}
    sound = [Chain(f"processbench/s{i}", [f"We add {i} and 2.", "So we get 7 apples.", "The answer is 7."], first_error=-1,
                   dataset="processbench") for i in range(3)]
    U = vr.record_units({"processbench": PB, "scienceqa": SQ}, vals, sound, {}, 0, frames, vr.PTPTraces(lambda t: ({}, None)))
    assert list(U) == ["processbench", "scienceqa", "perturbed_processbench"]
    recs = [check_item(r) for u in U.values() for unit in u for r in unit]
    a = recs[0]
    assert a["step_signals"] == {"label": ["ok", "error", "after error"], "length": [1.0, 2.0, 3.0]}
    assert a["title"] == "processbench/a · invalid, first error at step 1" and a["fields"]["chain:length"] == 3.0
    assert len(recs[2]["matrices"]) == 4 and recs[2]["fields"]["gold_label"] == "invalid"
    pert = U["perturbed_processbench"]
    assert [u[0]["id"] for u in pert] == [f"processbench/s{i}~original" for i in range(3)]
    assert all(r["fields"]["source"] == u[0]["id"].split("~")[0] for u in pert for r in u[1:])
    json.dumps(recs, ensure_ascii=False)
    sizes = [sum(len(json.dumps(check_item(r), ensure_ascii=False).encode()) + 1 for r in u) for u in pert]
    kept = vr.fit(pert, check_item, max_bytes=sum(sizes) - 1)    # one byte short of all three: 0.95 * 3 -> 2 units
    assert [r["id"] for r in kept] == [r["id"] for i in (0, 1) for r in pert[i]]
    assert vr.fit(pert, check_item) == [r for u in pert for r in u]
