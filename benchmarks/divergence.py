"""Speed of the trajectory divergence D (DTW over a cosine δ matrix), vectorised against a plain Python loop.

10,000 divergences between pairs of trajectories of 20 states each, 384-dimensional embeddings (the size of
all-MiniLM-L6-v2), embeddings precomputed: this measures the metric, not the embedder.

- vectorised: `cosine_delta` on the whole stack (one batched matrix product, no loop over state pairs), then
  `dtw_batch` (a numpy row recursion over all 10,000 matrices at once, and a joint walk back for |π|).
- per call: `divergence`'s path for one pair at a time (`cosine_delta` + `align_dtw`), looped over the 10,000
  pairs in Python; shown for reference.
- baseline: the straightforward pure-Python version: a double loop over state pairs computing each cosine
  from Python lists, then the textbook DTW double loop. It is timed on a subset of pairs (it is too slow for
  all 10,000) and its per-divergence time is scaled to 10,000; a second baseline does the same double loop
  but with `numpy.dot` per pair.

All variants are checked to give the same D on the subset. Targets (both on the vectorised path): ≥ 20x faster
than the pure-Python baseline, and ≤ 2 s for the 10,000. The script prints one BENCH line per target; the last
line (the speed-up) says `ok` only when both targets are met. Results are in benchmarks/README.md.

    .venv/bin/python benchmarks/divergence.py [--n 10000] [--states 20] [--dim 384] [--baseline-n 100]
"""
import argparse, math, time
import numpy as np
from reasoning_integrity.lines.trajectory.divergence import align_dtw, cosine_delta, dtw_batch
from _host import Host


def python_divergence(E1, E2):
    "Pure Python: δ = (1 - cos)/2 for every state pair in a double loop, then the textbook DTW double loop."
    n, m = len(E1), len(E2)
    M = [[0.0] * m for _ in range(n)]
    for i in range(n):
        a = E1[i]; na = math.sqrt(sum(x * x for x in a))
        for j in range(m):
            b = E2[j]; nb = math.sqrt(sum(x * x for x in b))
            cos = sum(x * y for x, y in zip(a, b)) / (na * nb)
            M[i][j] = min(1.0, max(0.0, (1 - cos) / 2))
    return _python_dtw(M)


def numpy_loop_divergence(E1, E2):
    "The same double loop over state pairs, one `numpy.dot` per pair."
    n, m = len(E1), len(E2)
    M = [[0.0] * m for _ in range(n)]
    for i in range(n):
        for j in range(m):
            a, b = E1[i], E2[j]
            cos = float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))
            M[i][j] = min(1.0, max(0.0, (1 - cos) / 2))
    return _python_dtw(M)


def _python_dtw(M):
    n, m = len(M), len(M[0])
    inf = float("inf")
    A = [[inf] * (m + 1) for _ in range(n + 1)]
    A[0][0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            A[i][j] = M[i - 1][j - 1] + min(A[i - 1][j - 1], A[i - 1][j], A[i][j - 1])
    return A[n][m]


def per_call(E1, E2):
    "One pair at a time through the library's single-pair path."
    out = np.empty(len(E1))
    for b in range(len(E1)):
        M = cosine_delta(E1[b], E2[b])
        p = align_dtw(M)
        i, j = np.array(p).T
        out[b] = M[i, j].sum()
    return out


def best_of(f, repeat):
    "Smallest wall time of `repeat` runs, and the last result."
    best, res = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter(); res = f(); best = min(best, time.perf_counter() - t)
    return best, res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=10_000, help="number of divergences")
    ap.add_argument("--states", type=int, default=20, help="states per trajectory")
    ap.add_argument("--dim", type=int, default=384, help="embedding dimension")
    ap.add_argument("--baseline-n", type=int, default=100, help="pairs timed with the pure-Python baseline")
    ap.add_argument("--repeat", type=int, default=3, help="best of this many runs for the fast paths")
    a = ap.parse_args()
    host = Host.start()

    rng = np.random.default_rng(0)
    def emb(*shape):
        X = rng.standard_normal(shape).astype(np.float32)
        return X / np.linalg.norm(X, axis=-1, keepdims=True)
    # Second trajectories are noisy copies of the first, with a few states shifted: realistic near-alignments.
    E1 = emb(a.n, a.states, a.dim)
    E2 = np.roll(E1, 1, axis=1) * 0.7 + emb(a.n, a.states, a.dim) * 0.3
    E2 /= np.linalg.norm(E2, axis=-1, keepdims=True)

    t_vec, (D_vec, L_vec) = best_of(lambda: dtw_batch(cosine_delta(E1, E2)), a.repeat)
    t_call, D_call = best_of(lambda: per_call(E1, E2), 1)

    k = min(a.baseline_n, a.n)
    L1, L2 = E1[:k].astype(float).tolist(), E2[:k].astype(float).tolist()
    t0 = time.perf_counter(); D_py = np.array([python_divergence(x, y) for x, y in zip(L1, L2)]); t_py = time.perf_counter() - t0
    k2 = min(3 * a.baseline_n, a.n)
    t0 = time.perf_counter(); D_np = np.array([numpy_loop_divergence(x, y) for x, y in zip(E1[:k2], E2[:k2])]); t_np = time.perf_counter() - t0

    # Same numbers from every path (float32 inputs, float64 arithmetic).
    assert np.allclose(D_vec[:k], D_py, atol=1e-5), np.abs(D_vec[:k] - D_py).max()
    assert np.allclose(D_vec[:k2], D_np, atol=1e-5)
    assert np.allclose(D_vec, D_call, atol=1e-9)

    per_py, per_np = t_py / k, t_np / k2
    est_py, est_np = per_py * a.n, per_np * a.n
    speedup = est_py / t_vec
    print(f"{a.n} divergences, {a.states} x {a.states} states, {a.dim}-d embeddings "
          f"(mean D = {D_vec.mean():.3f}, mean |π| = {L_vec.mean():.1f})")
    print(f"vectorised (cosine_delta + dtw_batch) : {t_vec:8.3f} s for {a.n}  ({t_vec / a.n * 1e6:7.1f} µs each)")
    print(f"per call (cosine_delta + align_dtw)   : {t_call:8.3f} s for {a.n}  ({t_call / a.n * 1e6:7.1f} µs each)")
    print(f"baseline pure Python (timed on {k:>4})  : {est_py:8.3f} s for {a.n}  ({per_py * 1e6:7.1f} µs each)")
    print(f"baseline loop + numpy.dot (on {k2:>4})   : {est_np:8.3f} s for {a.n}  ({per_np * 1e6:7.1f} µs each)")
    print(f"speedup vs pure Python: vectorised {speedup:.1f}x, per call {est_py / t_call:.1f}x; "
          f"vs loop + numpy.dot: vectorised {est_np / t_vec:.1f}x, per call {est_np / t_call:.1f}x")
    print(host.stop().describe())
    print(host.bench("divergence", "wall_s_10k", t_vec, 2, t_vec <= 2, ".3f"))
    ok = speedup >= 20 and t_vec <= 2  # the last line is ok only when both targets hold
    print(host.bench("divergence", "speedup", speedup, 20, ok, ".1f"))


if __name__ == "__main__":
    main()
