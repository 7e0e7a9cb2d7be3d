"""One build, one model, everywhere (issue 41 §1): the NLI model builds to the same weights whatever the process.

- Two reduced builds (a few hundred pairs, one epoch: seconds of training each) run one after the other in separate
  processes (at the same time, their 2-thread OpenMP teams share 2 cores and each spins while the other runs: 48 s
  instead of 24 on the 2-core machine, for no other check): one with none of the numeric-path variables set (the library sets them before torch computes), the
  other with them exported and MKL told to use at most AVX2 and OpenMP one thread (torch's thread count, fixed by the
  build, wins). The sha256 of their weights must be equal, and each model card records the path it was built on.
- The model in the user cache (`make test` builds it before pytest) must be the default build: its weights' sha256
  is `NLI_SHA256`. Skipped when it is not built; an expected failure (xfail) where it differs and MKL ran on
  another branch than the reference build's (MKL promises bit-identity across CPUs only within one branch).
"""
import hashlib, json, os, subprocess, sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from reasoning_integrity.core.data import DataNotFound, data_path
from reasoning_integrity.models.numeric import NUMERIC_ENV

ROOT = Path(__file__).resolve().parents[1]
BUILD = """
import json, sys
from reasoning_integrity.models.nli_train import build_nli
p = build_nli(out=sys.argv[1], limit=200, max_train=48, max_eval=24, dev_per_source=20, epochs=1, progress=False)
print(json.dumps(json.loads((p/"model_card.json").read_text())))
"""


def _data_present():
    try:
        data_path("nli/sick/SICK.txt"); data_path("nli/mnli_taxinli/taxinli10k.tsv"); data_path("nli/snli_esnli/s1.dev")
        return True
    except DataNotFound:
        return False


# The MKL branch the default build behind NLI_SHA256 ran on (AMD EPYC: MKL_CBWR=AVX2,STRICT is AUTO,STRICT there).
REFERENCE_MKL = "AUTO,STRICT"

def _sha(p): return hashlib.sha256(Path(p).read_bytes()).hexdigest()


@pytest.mark.skipif(not _data_present(), reason="the NLI data (RI_DATA_DIR) is not here")
def test_two_processes_build_the_same_weights(tmp_path):
    base = {k: v for k, v in os.environ.items() if k not in NUMERIC_ENV}
    base["PYTHONPATH"] = os.pathsep.join(p for p in [str(ROOT), base.get("PYTHONPATH")] if p)
    envs = {"unset": base, "exported": {**base, **NUMERIC_ENV, "MKL_ENABLE_INSTRUCTIONS": "AVX2", "OMP_NUM_THREADS": "1"}}
    cards = {}
    for k, e in envs.items():
        p = subprocess.run([sys.executable, "-c", BUILD, str(tmp_path / k)], env=e, capture_output=True, text=True, timeout=1500)
        assert p.returncode == 0, f"{k}: {p.stderr[-3000:]}"
        cards[k] = json.loads(p.stdout.strip().splitlines()[-1])
    shas = {k: _sha(tmp_path / k / "model.safetensors") for k in envs}
    assert shas["unset"] == shas["exported"], (shas, {k: c["training"]["numeric"] for k, c in cards.items()})
    for k, c in cards.items():
        assert c["weights_sha256"] == shas[k]
        n = c["training"]["numeric"]
        assert (n["cpu_capability"], n["threads"], n["project"], n["env"]) == ("AVX2", 2, True, NUMERIC_ENV), n
        assert c["hyperparameters"]["autocast"] is None and c["training"]["precision"] == "fp32"
    assert cards["unset"]["heldout"] == cards["exported"]["heldout"]


def test_importing_the_package_fixes_the_path_before_numpy_loads():
    "numpy and OpenBLAS choose kernels at their first import: the package sets NUMERIC_ENV before any of its modules imports them."
    env = {k: v for k, v in os.environ.items() if k not in NUMERIC_ENV}
    env["PYTHONPATH"] = os.pathsep.join(p for p in [str(ROOT), env.get("PYTHONPATH")] if p)
    code = ("import os, sys, json; import reasoning_integrity; print(json.dumps(['numpy' in sys.modules, "
            "{k: os.environ.get(k) for k in %r}]))" % sorted(NUMERIC_ENV))
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    numpy_loaded, seen = json.loads(p.stdout.strip().splitlines()[-1])
    assert not numpy_loaded and seen == NUMERIC_ENV
    env["OPENBLAS_NUM_THREADS"] = "1"   # a value the user set is kept (and reported by `check_numeric_path`)
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert json.loads(p.stdout.strip().splitlines()[-1])[1]["OPENBLAS_NUM_THREADS"] == "1"


def test_the_user_cache_holds_the_default_build():
    from reasoning_integrity.models.nli import default_nli_path
    from reasoning_integrity.models.nli_train import NLI_SHA256
    p = default_nli_path()
    if not (p / "model_card.json").exists():
        pytest.skip(f"the NLI model is not built ({p}): `ri models build-nli` (make test builds it)")
    card = json.loads((p / "model_card.json").read_text())
    sha = _sha(p / "model.safetensors")
    mkl = card.get("training", {}).get("numeric", {}).get("mkl_cnr")
    if sha != NLI_SHA256 and mkl != REFERENCE_MKL:
        # MKL promises bit-identity across CPUs only within one branch (its slow COMPATIBLE branch across vendors)
        pytest.xfail(f"built on MKL branch {mkl!r}, NLI_SHA256 on {REFERENCE_MKL!r}: sha256 {sha} differs; "
                     "the committed reports may move here (`ri models verify`)")
    assert sha == NLI_SHA256, (
        f"the NLI model in {p} is not the default build: sha256 {sha}, expected NLI_SHA256 {NLI_SHA256}. Built with "
        f"{card.get('hyperparameters')} on {card.get('training', {}).get('numeric', 'an unrecorded numeric path')}. "
        "Built before issue 41 (bf16 autocast, the CPU's own kernels), or on a CPU whose MKL takes another branch "
        "(see models.numeric); `ri models build-nli --force` rebuilds it, `ri models verify` says which reports move.")
