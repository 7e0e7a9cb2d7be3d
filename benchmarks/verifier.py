"""The learned step verifier's cost on all of ProcessBench (issue 42 §2), on the 2-core machine: the out-of-fold fit
(5 cross-encoders, each trained on four folds, then every step scored by the model that never saw its problem), the
reference build (one cross-encoder on every labelled step, `ri models build-verifier`) and the transfer (every step of
the other labelled sets of the full profile scored by the reference build). Trained models and scores come
from `cache_dir('verifier')` when they are there: run it with an empty `RI_CACHE_DIR` holding only `models/nli-minilm`
to time training (`--fresh` refuses a cache that already holds verifier models). Targets: folds and transfer within 45 min,
the build within 15 min. Ends with BENCH lines.

    RI_CACHE_DIR=/tmp/ri-verifier-bench .venv/bin/python benchmarks/verifier.py --fresh
"""
import argparse, os, sys, time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from reasoning_integrity.core.data import cache_dir
from reasoning_integrity.models.numeric import check_numeric_path, file_sha256
from reasoning_integrity.models.verifier import StepVerifier, VERIFIER_SHA256
from reasoning_integrity.signals.registry import SignalModels
from reasoning_integrity.signals.learned_verifier import fit_verifier, apply_verifier
from reasoning_integrity.signals.labelled import processbench_chains
from reasoning_integrity.signals.metrics import auroc
from reasoning_integrity.signals.validity import step_labels, validity_sets
from _host import Host

FOLDS_TARGET_S, BUILD_TARGET_S = 45 * 60, 15 * 60


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fresh", action="store_true", help="refuse to run when verifier models are already cached")
    args = ap.parse_args()
    models = cache_dir("verifier", create=False)/"models"
    if args.fresh and models.is_dir() and any(models.iterdir()):
        print(f"{models} holds trained verifiers: not a training measurement (use an empty RI_CACHE_DIR)"); return 2
    check_numeric_path()
    pb, _ = processbench_chains(n_per_subset=None, seed=0)
    other = [c for ds, cs in validity_sets(None, None, None, 200, 0)["labelled"].items() if ds != "processbench" for c in cs]
    host = Host.start()
    sc = SignalModels(verifier=StepVerifier())
    t = time.perf_counter(); m = fit_verifier(pb, sc); t_oof = time.perf_counter() - t
    fits_oof = sc.verifier.stats()["fits"]
    t = time.perf_counter(); full = fit_verifier(pb, sc, oof=False); t_build = time.perf_counter() - t
    t = time.perf_counter(); apply_verifier(full, other, sc, by_fold=False); t_transfer = time.perf_counter() - t
    host.stop()
    import numpy as np
    y = np.concatenate([step_labels(c, "first_error") for c in pb]); p = np.concatenate([m.oof[c.id] for c in pb])
    ok = np.isfinite(y)
    print(host.describe())
    print(f"ProcessBench: {m.n_chains} chains, {m.n_steps} labelled steps ({m.n_pos} wrong); settings {sc.verifier.hp}")
    print(f"out of fold: {t_oof:.0f} s ({fits_oof} models trained here), pooled step AUROC {auroc(p[ok], y[ok]):.3f}; "
          f"reference build: {t_build:.0f} s (sha256 {file_sha256(full.full_dir/'model.safetensors')[:16]}…, VERIFIER_SHA256 "
          f"{VERIFIER_SHA256[:16]}…); transfer: {sum(c.n_steps for c in other):,} steps of {len(other):,} chains in {t_transfer:.0f} s; "
          f"{sc.verifier.stats()}")
    ft = t_oof + t_transfer
    print(host.bench("verifier_folds_transfer", "wall_s", round(ft), FOLDS_TARGET_S, ok=ft <= FOLDS_TARGET_S))
    print(host.bench("verifier_build", "wall_s", round(t_build), BUILD_TARGET_S, ok=t_build <= BUILD_TARGET_S))


if __name__ == "__main__":
    sys.exit(main())
