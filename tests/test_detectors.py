"""PRMs and LLM critics as registry signals (issue 42 §3): `prm:<folder>` and `critic:<llm spec>` are made on first use,
scored by `validate_signal`, `ri score` and `compute_signals` like every signal, and never run what a spec says."""
import json, subprocess, sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from reasoning_integrity.signals.registry import SIGNALS, SignalModels, compute_signals
from reasoning_integrity.signals.chains import Chain

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    from reasoning_integrity.models.prm import tiny_prm
    d = tmp_path_factory.mktemp("prm")
    return {k: tiny_prm(k, d / k) for k in ("lm_head", "token_classification")}


def test_names_are_made_on_first_use_and_listed(tiny):
    name = f"prm:{tiny['lm_head']}#kind=lm_head"
    assert SIGNALS.unknown([name, "length"]) is None            # what `ri score --signals` checks
    assert name in SIGNALS and SIGNALS[name].family == "detector" and SIGNALS[name].higher == "right"
    assert SIGNALS.unknown(["prn:/x"]) is not None                # an unknown prefix stays unknown
    with pytest.raises(ValueError, match="unknown option"):
        SIGNALS[f"prm:{tiny['lm_head']}#exec=1"]


def test_validate_signal_scores_a_prm_on_the_labelled_data(tiny, tmp_path, monkeypatch):
    monkeypatch.setenv("RI_CACHE_DIR", str(tmp_path))
    from reasoning_integrity.signals.validity import validate_signal
    name = f"prm:{tiny['token_classification']}#kind=token_classification"
    r = validate_signal(name, datasets=["processbench"], n_boot=50, perturb=False)
    v = r.validity
    row = v[(v.signal == name) & (v.dataset == "processbench") & (v.level == "step") & (v.metric == "auroc")]
    assert len(row) == 1 and 0 <= row.value.item() <= 1 and row.n.item() > 100
    assert np.isfinite(row.gain_over_structure.item())           # judged against structure like every signal


def test_ri_score_takes_a_prm_and_a_critic_by_name(tiny, tmp_path):
    (tmp_path / "given.jsonl").write_text(json.dumps({"id": "s", "question": "what is 2 + 2 ?", "steps": ["2 + 2 = 4", "the answer is 4"]}) + "\n")
    name = f"prm:{tiny['lm_head']}#kind=lm_head"
    code = ("import sys\nfrom reasoning_integrity.run.cli import main\n"
            f"sys.exit(main(['score', 'given.jsonl', '--name', 'g', '--signals', {name + ',length'!r}, '--reports-dir', "
            f"{str(tmp_path / 'reports')!r}, '--no-progress', '--root', {str(ROOT)!r}]))")
    p = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                       env={**__import__("os").environ, "RI_CACHE_DIR": str(tmp_path / "cache")})
    assert p.returncode == 0, p.stderr[-3000:]
    items = pd.read_csv(tmp_path / "reports" / "scored" / "g" / "tables" / "items.csv")
    assert name in items.columns and 0 <= items[name].iloc[0] <= 1


def test_critic_with_the_runs_llm_and_unreadable_answers_counted():
    from reasoning_integrity.models.doubles import FakeLLM
    answers = iter(["\\boxed{0}", "no idea", "\\boxed{-1}"])
    llm = FakeLLM(lambda req: next(answers))
    cs = [Chain(f"c{i}", ["a", "b", "c"], "q?", dataset="processbench") for i in range(3)]
    sc = SignalModels(llm=llm)
    V, _ = compute_signals(cs, ["critic:"], sc)
    step = V[V.level == "step"].groupby("chain_id").value.apply(list)
    assert step["c0"] == [1.0, 0.5, 0.5] and step["c2"] == [0.0, 0.0, 0.0] and np.isnan(step["c1"]).all()
    assert list(sc.memo["critic_problems"]) == ["c1"]
    assert "ProcessBench" in llm.seen[0].messages[0]["content"] or "paragraph" in llm.seen[0].messages[0]["content"]
