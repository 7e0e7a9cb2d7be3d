"""The learned step verifier (issue 42 §2): deterministic training in separate processes, bounded inputs, no model
left by a failed training, every score cached before it is used, folds shared with `combined`."""
import json, os, subprocess, sys
from pathlib import Path
import numpy as np
import pytest

from reasoning_integrity.signals.chains import Chain
from reasoning_integrity.signals.learned_verifier import verifier_inputs, QUESTION_CHARS, CONTEXT_CHARS, STEP_CHARS, _examples

TINY = dict(base="minilm", epochs=1, lr=1e-4, batch_size=8, max_length=32, neg_per_pos=None)

_TRAIN = """
import json, sys
from reasoning_integrity.models.verifier import StepVerifier
from reasoning_integrity.models.numeric import weights_sha256
hp = json.loads(sys.argv[1])
ctx = [f"Problem {i}: add the numbers." for i in range(24)]
steps = ["This is wrong." if i % 3 == 0 else "We add them." for i in range(24)]
y = [int(i % 3 == 0) for i in range(24)]
v = StepVerifier(cache=False, progress=False, **hp)
print(weights_sha256(v.fit(ctx, steps, y)))
"""


def _train_in_process(tmp_path, name, hp):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["RI_CACHE_DIR"] = str(tmp_path/name)
    r = subprocess.run([sys.executable, "-c", _TRAIN, json.dumps(hp)], env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout.strip().splitlines()[-1]


def test_training_is_deterministic_across_processes(tmp_path, monkeypatch):
    a, b = _train_in_process(tmp_path, "a", TINY), _train_in_process(tmp_path, "b", TINY)
    assert len(a) == 64 and a == b                                # the same weights, bit for bit, from two processes
    monkeypatch.setenv("RI_CACHE_DIR", str(tmp_path/"c"))          # the check can fail: another seed, other weights
    from reasoning_integrity.models.verifier import StepVerifier
    from reasoning_integrity.models.numeric import weights_sha256
    ctx = [f"Problem {i}: add the numbers." for i in range(24)]   # the data of _TRAIN
    steps = ["This is wrong." if i % 3 == 0 else "We add them." for i in range(24)]
    y = [int(i % 3 == 0) for i in range(24)]
    assert weights_sha256(StepVerifier(cache=False, progress=False, **{**TINY, "seed": 1}).fit(ctx, steps, y)) != a


def test_inputs_are_bounded_and_linear():
    long = Chain("x/0", ["y" * 20000] * 400, "q" * 20000, first_error=-1, dataset="x")   # capped by Chain, cut again here
    ctx, st = verifier_inputs(long)
    assert len(ctx) == long.n_steps and max(map(len, ctx)) <= QUESTION_CHARS + 3 + CONTEXT_CHARS
    assert max(map(len, st)) <= STEP_CHARS


def test_examples_follow_the_first_error_rule():
    c = Chain("p/0", ["a", "b", "c", "d"], "q", first_error=1, dataset="processbench")
    C, S, y, R = _examples([c], {c.id: np.array([0.0, 1.0, np.nan, np.nan])})
    assert S == ["a", "b"] and y.tolist() == [0, 1] and R == [(0, 0), (0, 1)]   # steps after the first error: unlabelled


def test_failed_training_leaves_no_model(tmp_path, monkeypatch):
    monkeypatch.setenv("RI_CACHE_DIR", str(tmp_path))
    from reasoning_integrity.models import verifier as mv
    def boom(*a, out=None, **k):
        Path(a[3]).mkdir(parents=True); (Path(a[3])/"model.safetensors").write_bytes(b"half")
        raise KeyboardInterrupt
    monkeypatch.setattr(mv, "train_verifier", boom)
    v = mv.StepVerifier(cache=False, progress=False, **TINY)
    with pytest.raises(KeyboardInterrupt): v.fit(["c"] * 4, ["s"] * 4, [0, 1, 0, 1])
    assert list((tmp_path/"verifier"/"models").iterdir()) == []      # neither a model nor a half-written folder


def test_scores_are_cached_and_resumed(tmp_path, monkeypatch):
    monkeypatch.setenv("RI_CACHE_DIR", str(tmp_path))
    from reasoning_integrity.models.verifier import StepVerifier
    ctx, steps = [f"Problem {i}." for i in range(12)], ["This is wrong." if i % 2 else "We add." for i in range(12)]
    v = StepVerifier(progress=False, **TINY)
    d = v.fit(ctx, steps, [i % 2 for i in range(12)])
    p = v.predict(d, ctx[:6], steps[:6])                              # half of them, as a run killed midway
    w = StepVerifier(progress=False, **TINY)                          # a new process's object: the disk cache only
    q = w.predict(d, ctx, steps)
    assert w.stats() == dict(fits=0, scored=6, cached=6)             # only the missing half is computed
    assert np.array_equal(q[:6], p) and np.all((q > 0) & (q < 1))


def test_score_chain_uses_only_an_installed_build(tmp_path, monkeypatch):
    monkeypatch.setenv("RI_CACHE_DIR", str(tmp_path))
    from reasoning_integrity.models import verifier as mv
    from reasoning_integrity.run.api import score_chain
    monkeypatch.setattr(mv, "VERIFIER_HP", {**mv.VERIFIER_HP, **TINY})   # the "default" settings: the tiny ones
    steps = ["We add 2 and 2.", "This is wrong: 2 + 2 = 5.", "So the answer is 5."]
    s = score_chain(steps, "What is 2 + 2?", signals=["learned_verifier"])
    assert "not built" in s.skipped["learned_verifier"]               # never trains inside score_chain
    assert not (tmp_path/"verifier"/"models").exists()
    v = mv.StepVerifier(progress=False)
    v.install(v.fit([f"Problem {i}." for i in range(12)], ["This is wrong." if i % 2 else "We add." for i in range(12)],
                    [i % 2 for i in range(12)]))
    s = score_chain(steps, "What is 2 + 2?", signals=["learned_verifier"])
    p = s.steps["learned_verifier"].to_numpy()
    assert "learned_verifier" not in s.skipped and p.shape == (3,) and np.all((p > 0) & (p < 1))


def test_asking_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("RI_CACHE_DIR", str(tmp_path))
    from reasoning_integrity.models.verifier import StepVerifier
    v = StepVerifier(cache=False, progress=False)
    assert v.installed() is None and v.describe()["weights_sha256"] is None
    assert not (tmp_path/"verifier").exists() and not (tmp_path/"models").exists()   # no folder made by a question


def test_inspect_scorer_uses_only_an_installed_build(tmp_path, monkeypatch):
    "The inspect scorer (`reasoning_integrity/integrity`, `-S signals=learned_verifier`) refuses until a build is installed, then scores with it."
    pytest.importorskip("inspect_ai")
    import asyncio
    from types import SimpleNamespace
    monkeypatch.setenv("RI_CACHE_DIR", str(tmp_path))
    from reasoning_integrity.models import verifier as mv
    from reasoning_integrity.inspect import integrity
    monkeypatch.setattr(mv, "VERIFIER_HP", {**mv.VERIFIER_HP, **TINY})   # the "default" settings: the tiny ones
    with pytest.raises(ValueError, match="ri models build-verifier"): integrity(signals="learned_verifier")
    assert not (tmp_path/"verifier").exists()                              # asking trained nothing
    v = mv.StepVerifier(progress=False)
    v.install(v.fit([f"Problem {i}." for i in range(12)], ["This is wrong." if i % 2 else "We add." for i in range(12)],
                    [i % 2 for i in range(12)]))
    score = integrity(signals="learned_verifier")
    state = SimpleNamespace(output=SimpleNamespace(completion="We add 2 and 2.\n\nThis is wrong: 2 + 2 = 5.\n\nSo it is 5."),
                            input_text="What is 2 + 2?")
    s = asyncio.run(score(state, None))
    steps = s.metadata["step_signals"]["learned_verifier"]
    assert len(steps) == 3 and all(0 < p < 1 for p in steps), s.metadata
    assert s.value["learned_verifier"] == pytest.approx(max(steps))            # the chain value: the largest step's
