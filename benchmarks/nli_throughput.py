"""NLI throughput: `NLIModel` (deduplicated, length-sorted batches) vs one pair per forward pass.

SelfCheckGPT (SelfCheckNLI) and semantic_uncertainty call their NLI model once per pair. The workload here is the
one this project produces: pairwise step matrices between sampled reasoning trajectories, where sampled
trajectories repeat many of their steps. Both paths score the same pairs with the same model in this process;
the script checks that they agree and ends with a BENCH line.

    .venv/bin/python benchmarks/nli_throughput.py [--model PATH_OR_NAME] [--threads 2]
"""
import argparse, math, os, sys, tempfile, time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np
import torch

from reasoning_integrity.core.data import data_path
from reasoning_integrity.models.nli import NLIModelMissing, NLIModel, forward_probs
from _host import Host


def step_matrix_pairs(k: int, n_steps: int, variants: int, seed: int = 0):
    "Premise/hypothesis lists of all step-vs-step pairs between k sampled trajectories (ordered pairs a != b)."
    sents = [s.strip() for s in data_path("nli/snli_esnli/s2.test").read_text().splitlines()]
    rng = np.random.default_rng(seed)
    pool = rng.choice(len(sents), size=(n_steps, variants), replace=False)       # phrasings of each step
    trajs = [[sents[pool[j, rng.integers(variants)]] for j in range(n_steps)] for _ in range(k)]
    prem, hyp = [], []
    for a in range(k):
        for b in range(k):
            if a != b:
                for sa in trajs[a]:
                    for sb in trajs[b]:
                        prem.append(sa); hyp.append(sb)
    return prem, hyp


def per_pair(model, tok, prem, hyp):
    "The baseline: one tokenizer call and one forward pass per pair (as SelfCheckNLI does)."
    out = np.zeros((len(prem), model.config.num_labels), dtype=np.float32)
    with torch.inference_mode():
        for i, (p, h) in enumerate(zip(prem, hyp)):
            enc = tok([(p, h)], padding="longest", truncation=True, max_length=256, return_tensors="pt")
            out[i] = torch.softmax(model(**enc).logits, dim=-1)[0].numpy()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default=None, help="HF NLI model name or folder (default: the project's model)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--k", type=int, default=4, help="sampled trajectories")
    ap.add_argument("--steps", type=int, default=5, help="steps per trajectory")
    ap.add_argument("--variants", type=int, default=3, help="phrasings per step shared among samples")
    ap.add_argument("--batch-size", type=int, default=64)
    args = ap.parse_args()
    host = Host.start()
    torch.set_num_threads(args.threads)
    try:
        nli = NLIModel(args.model, batch_size=args.batch_size, cache=False)
    except NLIModelMissing as e:
        print(e)
        print(host.stop().describe())
        print(host.bench("nli_throughput", "speedup", "nan", 5, False, timed=False))   # no model: nothing measured
        return 1
    model, tok = nli._load(), nli._tok
    prem, hyp = step_matrix_pairs(args.k, args.steps, args.variants)
    n, n_uniq = len(prem), len(set(zip(prem, hyp)))
    print(f"model: {nli.model_name}")
    print(f"workload: {args.k} trajectories x {args.steps} steps, all ordered trajectory pairs: "
          f"{n} pairs, {n_uniq} distinct ({n / n_uniq:.1f}x duplication); {args.threads} threads")
    per_pair(model, tok, prem[:8], hyp[:8])                                          # warm-up

    t = time.perf_counter(); base = per_pair(model, tok, prem, hyp); t_base = time.perf_counter() - t
    t = time.perf_counter(); batched = forward_probs(model, tok, prem, hyp, batch_size=args.batch_size)
    t_batch = time.perf_counter() - t
    t = time.perf_counter(); fast = nli.predict(prem, hyp); t_fast = time.perf_counter() - t
    with tempfile.TemporaryDirectory() as d:
        warm = NLIModel(args.model, batch_size=args.batch_size, cache_path=Path(d) / "nli.sqlite")
        warm.predict(prem, hyp)
        warm2 = NLIModel(args.model, cache_path=Path(d) / "nli.sqlite")
        t = time.perf_counter(); cached = warm2.predict(prem, hyp); t_warm = time.perf_counter() - t
        assert warm2.n_forward == 0

    cols = nli._cols
    err = max(np.abs(base[:, cols] - fast).max(), np.abs(batched[:, cols] - fast).max(), np.abs(cached - fast).max())
    agree = (base[:, cols].argmax(1) == fast.argmax(1)).mean()
    print(f"max |difference| between paths: {err:.2e}; same argmax on {agree:.1%} of pairs")
    assert err < 1e-3, err
    print(f"{'path':<44}{'seconds':>9}{'pairs/s':>10}{'speedup':>9}")
    for name, s in [("one pair per forward pass (baseline)", t_base),
                    (f"length-sorted batches of {args.batch_size}, no dedup", t_batch),
                    ("NLIModel: dedup + batches (cold)", t_fast),
                    ("NLIModel: warm SQLite cache (info)", t_warm)]:
        print(f"{name:<44}{s:>9.2f}{n / s:>10.0f}{t_base / s:>8.1f}x")
    print(f"forward passes: baseline {n}, NLIModel {nli.n_forward} ({nli.n_scored} pairs scored)")
    speedup = t_base / t_fast
    print(host.stop().describe())
    print(host.bench("nli_throughput", "speedup", speedup, 5, speedup >= 5, ".1f"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
