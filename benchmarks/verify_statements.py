"""How long one statement can hold the arithmetic verifier (issue 43): no statement may take over 50 ms.

`.venv/bin/python benchmarks/verify_statements.py`: `check_step` on hostile one-statement steps (towers of powers,
4,000-digit numbers, 40-deep brackets, factorials and binomials at the caps, identities of degree 40 in six letters,
identities with poles, a 200-token side, LaTeX nested to the parser's depth, long chains `a = b = c = …`, runs of
`\\frac`) and on every step of ProcessBench (3,400 solutions) when the data is there. Each step is timed alone (best of
3); the time per statement is the step's time divided by its relations (at least 1). Ends with
`BENCH verifier_statement max_ms=<slowest statement> target=50 ok|short`.
"""
import json, os, sys, time
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
os.environ.setdefault("RI_DATA_DIR", os.path.join(ROOT, "..", "shared", "data"))
from reasoning_integrity.signals.verify import check_step
from _host import Host

TARGET_MS = 50.0
X = "(x + y + z + u + v + w)"
HOSTILE = {
    "power tower": "$2^{2^{2^{2^{2^{2}}}}} = 65536$",
    "huge literal": "9" * 4000 + " + 1 = 1" + "0" * 4000,
    "deep brackets": "(" * 38 + "1 + 1" + ")" * 38 + " = 2",
    "factorial cap": "300! / 299! = 300",
    "binomial cap": "$\\binom{100000}{50000} = 1$",
    "identity degree 40": f"y = {X}^{{10}} {X}^{{10}} = {X}^{{20}}",
    "identity over the cap": f"y = {X}^{{15}} {X}^{{15}} = {X}^{{30}}",
    "identity with poles": "y = \\frac{1}{x - 1} + \\frac{1}{x + 1} = \\frac{2x}{x^2 - 1}",
    "long side": " + ".join(["7"] * 99) + " = 693",
    "nested fractions": "$" + "\\frac{1}{1 + " * 38 + "1" + "}" * 38 + " = 1$",
    "long chain": " = ".join(f"{k} + {k}" for k in range(1, 200)),
    "frac run": " ".join(f"$\\frac{{{k}}}{{{k + 1}}} = {k / (k + 1):.4f}$" for k in range(1, 150)),
    "exponent of letters": "y = 2^{x} 2^{x} = 4^{x}",
    "rational exponents": "$8^{2/3} = 4 = 64^{1/3}$",
}

def timed(step):
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter(); ck = check_step(step); best = min(best, time.perf_counter() - t)
    return best * 1000, max(1, len(ck.statements))

def main():
    host = Host.start()
    rows = [(name, *timed(s)) for name, s in HOSTILE.items()]
    pb = os.path.join(os.environ["RI_DATA_DIR"], "processbench", "dataset")
    worst_pb, n_pb = (0.0, ""), 0
    if os.path.isdir(pb):
        for f in sorted(os.listdir(pb)):
            for r in json.load(open(os.path.join(pb, f), encoding="utf-8")):
                for i, s in enumerate(r["steps"]):
                    ms, n = timed(s)
                    n_pb += 1
                    if ms / n > worst_pb[0]: worst_pb = (ms / n, f"{r['id']} step {i} ({n} relations, {ms:.1f} ms)")
    host.stop()
    print(host.describe())
    print(f"{'input':<24} {'ms':>9} {'relations':>9} {'ms/statement':>12}")
    for name, ms, n in rows: print(f"{name:<24} {ms:9.2f} {n:9d} {ms / n:12.2f}")
    if n_pb: print(f"ProcessBench: {n_pb} steps; slowest per statement {worst_pb[0]:.2f} ms: {worst_pb[1]}")
    worst = max([ms / n for _, ms, n in rows] + [worst_pb[0]])
    print(host.bench("verifier_statement", "max_ms", round(worst, 2), TARGET_MS, ok=worst <= TARGET_MS))

if __name__ == "__main__": sys.exit(main())
