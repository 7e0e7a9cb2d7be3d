"""Embedding throughput: sentences/s of `Embedder` at batch size 1 vs its batch size, same sentences, same model.

The sentences are distinct SNLI premises (no cache hits: both embedders run with `cache=False`). The batched
vectors are checked against the one-at-a-time vectors. Ends with a BENCH line.

    .venv/bin/python benchmarks/embedding_throughput.py [--n 512] [--batch-size 64] [--threads 2]
"""
import argparse, os, sys, time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np
import torch

from reasoning_integrity.core.data import data_path
from reasoning_integrity.models.embed import Embedder
from _host import Host


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=512, help="distinct sentences")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--model", default=None, help="sentence-transformers name or path (default: packaged MiniLM)")
    args = ap.parse_args()
    host = Host.start()
    torch.set_num_threads(args.threads)
    sents = list(dict.fromkeys(s.strip() for s in data_path("nli/snli_esnli/s1.test").read_text().splitlines()))
    sents = sents[:args.n]
    one, many = Embedder(args.model, batch_size=1, cache=False), Embedder(args.model, batch_size=args.batch_size, cache=False)
    many._model = one.model                                                           # the same model object
    one(sents[:8]); many(sents[:8])                                                   # warm-up
    t = time.perf_counter(); E1 = one(sents); t1 = time.perf_counter() - t
    t = time.perf_counter(); Eb = many(sents); tb = time.perf_counter() - t
    err = np.abs(E1 - Eb).max()
    print(f"model: {one.identity}; {len(sents)} distinct sentences; {args.threads} threads")
    print(f"max |difference| batch 1 vs batch {args.batch_size}: {err:.2e}")
    assert err < 1e-3, err
    print(f"{'batch size':<12}{'seconds':>9}{'sentences/s':>13}")
    print(f"{1:<12}{t1:>9.2f}{len(sents) / t1:>13.0f}")
    print(f"{args.batch_size:<12}{tb:>9.2f}{len(sents) / tb:>13.0f}")
    speedup = t1 / tb
    print(host.stop().describe())
    print(host.bench("embedding_throughput", "speedup", speedup, 3, speedup >= 3, ".1f"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
