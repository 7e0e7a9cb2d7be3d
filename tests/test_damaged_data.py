"""A damaged data file is named in the error and nothing is dropped silently (issue 14, 'truncated data file'):
each loader is pointed (through RI_DATA_DIR) at a copy of the real data with one file cut in half."""
import os, shutil, subprocess, sys
from pathlib import Path
import pytest
from reasoning_integrity.core.data import DataFileDamaged

SHARED = Path(os.environ.get("RI_DATA_DIR", Path(__file__).resolve().parents[2] / "shared" / "data"))
ROOT = Path(__file__).resolve().parents[1]


def _cut_copy(tmp_path, rel):
    "A data root holding only `rel`, cut to half its bytes."
    src = SHARED / rel
    if not src.exists(): pytest.skip(f"no {rel} in {SHARED}")
    dst = tmp_path / rel; dst.parent.mkdir(parents=True, exist_ok=True)
    raw = src.read_bytes(); dst.write_bytes(raw[: len(raw) // 2])
    return dst


def test_bbh_truncated_file_is_named(tmp_path, monkeypatch):
    from reasoning_integrity.lines.ptp.bbh import load_bbh, load_codex
    dst = _cut_copy(tmp_path, "bbh/bbh/navigate.json")
    monkeypatch.setenv("RI_DATA_DIR", str(tmp_path))
    with pytest.raises(DataFileDamaged, match="navigate.json"): load_bbh("navigate")
    dst = _cut_copy(tmp_path, "bbh/code-davinci-002-outputs/code-davinci-002-cot/navigate_few_shot_template_0-255000.json")
    with pytest.raises(DataFileDamaged, match="navigate_few_shot"): load_codex("navigate", "cot")


def test_processbench_truncated_subset_is_an_error_not_a_dropped_subset(tmp_path, monkeypatch):
    from reasoning_integrity.lines.long_cot.processbench import load_processbench
    for sub in ("gsm8k", "math"):
        src = SHARED / f"processbench/dataset/{sub}.json"
        if not src.exists(): pytest.skip("no ProcessBench data")
        (tmp_path / "processbench/dataset").mkdir(parents=True, exist_ok=True)
        shutil.copy(src, tmp_path / f"processbench/dataset/{sub}.json")
    _cut_copy(tmp_path, "processbench/dataset/math.json")
    monkeypatch.setenv("RI_DATA_DIR", str(tmp_path))
    assert len(load_processbench(["gsm8k"], n=4)[0]) == 4
    with pytest.raises(DataFileDamaged, match="math.json"): load_processbench(["gsm8k", "math"], n=4)


def test_deltabench_truncated_file_is_named_by_the_loader_and_the_experiment(tmp_path):
    from reasoning_integrity.lines.long_cot.deltabench import load_deltabench, DELTABENCH_SAMPLE
    dst = _cut_copy(tmp_path, DELTABENCH_SAMPLE)
    with pytest.raises(DataFileDamaged, match="Deltabench_v1_first10"): load_deltabench(dst)
    pytest.importorskip("papermill")
    cmd = [sys.executable, "-m", "papermill", str(ROOT / "nbs/experiments/deltabench.ipynb"), str(tmp_path / "o.ipynb"),
           "-p", "report_dir", str(tmp_path / "r"), "-p", "source", str(dst), "--cwd", str(ROOT)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert r.returncode != 0
    out = r.stdout + r.stderr
    assert "DataFileDamaged" in out and "Deltabench_v1_first10" in out and "KeyError" not in out


def test_scienceqa_names_a_damaged_file(tmp_path, monkeypatch):
    from reasoning_integrity.lines.alignment import scienceqa
    rel = next((p.relative_to(SHARED).as_posix() for p in sorted((SHARED / "scienceqa").rglob("*.json"))), None) \
        if (SHARED / "scienceqa").exists() else None
    if rel is None: pytest.skip("no ScienceQA data")
    _cut_copy(tmp_path, rel)
    monkeypatch.setenv("RI_DATA_DIR", str(tmp_path))
    with pytest.raises(DataFileDamaged, match=Path(rel).name): scienceqa._json(rel)
