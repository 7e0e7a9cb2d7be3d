"""Issue 26, point 10 (last part): an NLI build leaves no `.{name}.building-{pid}` folder behind. A killed build's
folder (its process is gone) is removed by the next `build_nli` call, and only that folder; a build that fails or is
interrupted removes its own on the way out. No model is trained here: training is replaced by a stand-in."""
import os
import subprocess
import sys

import pandas as pd
import pytest

from reasoning_integrity.models import nli_train


def _dead_pid():
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()                                   # exited and reaped: no such process any more
    return p.pid


def _tree(d):
    return sorted(p.name for p in d.iterdir())


def test_next_build_removes_only_dead_builds_folders(tmp_path):
    dead = _dead_pid()
    out = tmp_path / "nli-minilm"
    out.mkdir()
    (out / "model_card.json").write_text("{}")            # a built model: the call below trains nothing
    stale = tmp_path / f".nli-minilm.building-{dead}"
    stale.mkdir()
    (stale / "model.safetensors").write_bytes(b"0" * 1000)
    keep = [f".nli-minilm.building-{os.getpid()}",          # a live build (this process)
            f".other.building-{dead}",                      # another target's
            f"nli-minilm.building-{dead}",                  # not the pattern (no leading dot)
            f".nli-minilm.building-{dead}.bak",             # not the pattern (a suffix)
            "notes"]
    for k in keep: (tmp_path / k).mkdir()
    (tmp_path / f".nli-minilm.building-{dead + 1}").write_text("a file")   # matches the name, but is not a folder
    keep.append(f".nli-minilm.building-{dead + 1}")
    assert nli_train.build_nli(out=out, progress=False) == out
    assert not stale.exists()
    assert _tree(tmp_path) == sorted(["nli-minilm", *keep])


def test_interrupted_build_removes_its_folder(tmp_path, monkeypatch):
    df = pd.DataFrame(dict(premise=["a", "b", "c"], hypothesis=["a", "b", "c"], label=["entailment"] * 3,
                           source=["snli"] * 3, split=["train", "dev", "test"]))
    monkeypatch.setattr(nli_train, "nli_splits", lambda **kw: df)

    def interrupted(train, dev, out, **kw):                  # the first epoch saved, then Ctrl-C
        os.makedirs(out)
        open(os.path.join(out, "model.safetensors"), "wb").write(b"0" * 1000)
        raise KeyboardInterrupt

    monkeypatch.setattr(nli_train, "train_nli", interrupted)
    with pytest.raises(KeyboardInterrupt):
        nli_train.build_nli(out=tmp_path / "nli", progress=False)
    assert _tree(tmp_path) == []

    def failing(train, dev, out, **kw):
        os.makedirs(out)
        raise RuntimeError("out of memory")

    monkeypatch.setattr(nli_train, "train_nli", failing)
    with pytest.raises(RuntimeError, match="out of memory"):
        nli_train.build_nli(out=tmp_path / "nli", progress=False)
    assert _tree(tmp_path) == []
