"""The embedding probe's cost on all of ProcessBench (issue 42 §2): out-of-fold fit (5 folds grouped by problem, the
signal's own path) and the subset-rotation / transfer evaluations, on the 2-core machine. The embeddings come from the
cache when `metric_validity` ran before (they are `embedding_drift`'s); the first run embeds them (timed apart).
Target (issue 42): all folds within 5 min; the evaluations (each with its out-of-fold gains) are timed beside, with
the same target for both together. Ends with BENCH lines.

    .venv/bin/python benchmarks/probe.py [--pb-per-subset 0]
"""
import argparse, os, sys, time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from reasoning_integrity.models.numeric import check_numeric_path
from reasoning_integrity.signals.registry import SignalModels
from reasoning_integrity.signals.combined import combined_predictions, combined_models
from reasoning_integrity.signals.probe import probe_features, probe_evaluations
from reasoning_integrity.signals.validity import validity_sets
from reasoning_integrity.models.embed import Embedder
from _host import Host

TARGET_S = 300


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pb-per-subset", type=int, default=0, help="ProcessBench solutions per subset (0: all 3,400)")
    args = ap.parse_args()
    check_numeric_path()
    host = Host.start()
    lab = validity_sets(args.pb_per_subset or None, None, None, 200, 0)["labelled"]
    sc = SignalModels(emb=Embedder())
    t = time.perf_counter(); probe_features(lab["processbench"], sc); t_emb = time.perf_counter() - t
    t = time.perf_counter(); combined_predictions(lab["processbench"], sc, kind="embedding_probe"); t_oof = time.perf_counter() - t
    m = combined_models(sc, "embedding_probe")["processbench"]
    t = time.perf_counter(); E = probe_evaluations(lab, sc, kinds=("embedding_probe",), n_boot=200); t_ev = time.perf_counter() - t
    host.stop()
    print(host.describe())
    print(f"ProcessBench: {m.n_chains} chains, {m.n_steps} labelled steps, {len(m.features)} features; embeddings "
          f"{t_emb:.1f} s (cache hits when metric_validity ran before)")
    print(f"out of fold (5 folds + the model on all the data): {t_oof:.1f} s, AUROC {m.oof_auroc:.3f}; "
          f"evaluations ({E.evaluation.nunique()} plans): {t_ev:.1f} s")
    total = t_oof + t_ev
    print(host.bench("probe_all_folds", "wall_s", round(t_oof, 1), TARGET_S, ok=t_oof <= TARGET_S))   # the target
    print(host.bench("probe_folds_and_evaluations", "wall_s", round(total, 1), TARGET_S, ok=total <= TARGET_S))


if __name__ == "__main__":
    sys.exit(main())
