"""llama.cpp's build: its compile time (the portable lib-only build against the earlier native one) and whether its
greedy outputs are deterministic (run to run, 1 vs 2 threads) and equal to another build's.

- `--outputs OUT.json [--compare OTHER.json]` (default mode): with the installed llama_cpp, greedy decoding of four
  fixed prompts (64 tokens each, the embedded Gemma 3 270M GGUF from the user cache), twice with 1 thread and twice
  with 2 threads, each step's token and top-5 log-probabilities read from llama.cpp's last logits row. Prints the
  build's features (`llama_print_system_info`), tokens/s per thread count, whether all four runs agree bit for bit,
  and, with `--compare`, where the texts of another build (its OUT.json) part from these. Ends with
  `BENCH llama_determinism identical=<0|1> target=1 ok|short` (not a timing: no load verdict).
- `--compile`: builds the llama-cpp-python wheel (the Makefile's version) in a throw-away venv with `--no-cache-dir`,
  once with the Makefile's flags (portable, no libllama-common) and once with the flags it used before (`-march=native`
  minus AMX, libllama-common and all), one after the other; prints wall and CPU seconds of each and ends with
  `BENCH llama_compile cpu_ratio=<before/after> target=1.5 ok|short` (the CPU seconds; with the load guard).

    .venv/bin/python benchmarks/llama_build.py --outputs /tmp/portable.json [--compare /tmp/native.json]
    python3 benchmarks/llama_build.py --compile [--sdist llama_cpp_python-0.3.36.tar.gz]
"""
import argparse, json, os, resource, subprocess, sys, tempfile, time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _host import Host

ROOT = Path(__file__).resolve().parents[1]
PROMPTS = [
    "Question: A farmer has 17 sheep. All but 9 run away. How many sheep are left?\nAnswer: Let's think step by step.",
    "Translate to French: The cat sat on the mat because it was warm.\nFrench:",
    "def fibonacci(n):\n    \"\"\"Return the n-th Fibonacci number.\"\"\"\n",
    "The three most important causes of the French Revolution were",
]
NO_AMX = "-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
BEFORE = f"-DLLAVA_BUILD=OFF -DCMAKE_C_FLAGS='{NO_AMX}' -DCMAKE_CXX_FLAGS='{NO_AMX}'"   # the Makefile's flags before issue 41


def greedy(llm, prompt, n=64):
    "Token ids and top-5 (id, log-probability) of each greedy step."
    import numpy as np, llama_cpp
    llm.reset()
    llm.eval(llm.tokenize(prompt.encode(), add_bos=True))
    toks, tops, nv = [], [], llm.n_vocab()
    for _ in range(n):
        row = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llm.ctx, -1), shape=(nv,)).astype(np.float64)
        lp = row - (row.max() + np.log(np.exp(row - row.max()).sum()))
        top = np.argsort(-lp, kind="stable")[:5]
        toks.append(int(top[0])); tops.append([[int(i), float(lp[i])] for i in top])
        if toks[-1] == llm.token_eos(): break
        llm.eval([toks[-1]])
    return dict(text=llm.detokenize(toks).decode(errors="replace"), tokens=toks, top=tops)


def outputs(a, host):
    import llama_cpp
    from llama_cpp import Llama
    from reasoning_integrity.models.llamacpp import KNOWN_MODELS, llama_build_problem
    gguf = KNOWN_MODELS["gemma3-270m"][0]()
    info = llama_cpp.llama_print_system_info().decode()
    print(f"llama.cpp {llama_cpp.__version__}: {info}\nportable build: {llama_build_problem() or 'yes'}", flush=True)
    runs, models = {}, {}
    for threads in (1, 2, 1, 2):
        llm = models.setdefault(threads, Llama(str(gguf), n_ctx=512, n_threads=threads, n_threads_batch=threads, verbose=False))
        t = time.perf_counter(); o = [greedy(llm, p) for p in PROMPTS]; s = time.perf_counter() - t
        n = sum(len(x["tokens"]) for x in o)
        print(f"  {threads} thread(s): {n} tokens in {s:.1f} s ({n / s:.1f} tokens/s, prompts included; load {os.getloadavg()[0]:.2f})", flush=True)
        runs.setdefault(threads, []).append(o)
    same = all(r[0] == r[1] for r in runs.values()) and runs[1][0] == runs[2][0]
    print(f"run to run and 1 vs 2 threads: {'identical, tokens and top-5 log-probabilities bit for bit' if same else 'DIFFERENT'}")
    Path(a.outputs).write_text(json.dumps(dict(info=info, out=runs[2][0])))
    if a.compare:
        other = json.loads(Path(a.compare).read_text())
        print(f"against {a.compare} ({other['info'].strip()}):")
        for i, (x, y) in enumerate(zip(runs[2][0], other["out"])):
            k = next((j for j, (s, t) in enumerate(zip(x["tokens"], y["tokens"])) if s != t), None)
            d = max(abs(p[0][1] - q[0][1]) for p, q in zip(x["top"][:k], y["top"][:k]))
            print(f"  prompt {i}: " + ("same tokens" if k is None and len(x["tokens"]) == len(y["tokens"]) else f"parts at token {k}")
                  + f"; largest difference of the greedy token's log-probability before that {d:.2e}")
    print(host.stop().describe())
    print(host.bench("llama_determinism", "identical", int(same), 1, same, timed=False))


def _children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def compile_times(a, host):
    def var(name):
        return subprocess.run(["make", "-s", "--no-print-directory", f"print-{name}"], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()
    version = var("LLAMA_CPP_VERSION")
    after = f"{var('LLAMA_CMAKE_ARGS')} -DCMAKE_PROJECT_llama.cpp_INCLUDE={ROOT / var('LLAMA_LIB_ONLY')}"
    src = a.sdist or f"llama-cpp-python=={version}"
    res = {}
    with tempfile.TemporaryDirectory(prefix="ri-llama-build-") as d:
        subprocess.run([sys.executable, "-m", "venv", f"{d}/v"], check=True)
        for name, args in (("after (Makefile: portable, lib only)", after), ("before (-march=native minus AMX)", BEFORE)):
            c0, t0 = _children_cpu(), time.perf_counter()
            r = subprocess.run([f"{d}/v/bin/pip", "wheel", "-q", "--no-deps", "--no-cache-dir", "-w", f"{d}/w", src],
                               env={**os.environ, "CMAKE_ARGS": args}, capture_output=True, text=True)
            res[name] = (time.perf_counter() - t0, _children_cpu() - c0)
            print(f"  {name}: {res[name][0]:.0f} s wall, {res[name][1]:.0f} s CPU (exit {r.returncode}; load "
                  f"{os.getloadavg()[0]:.2f})", flush=True)
            if r.returncode: raise SystemExit(r.stdout[-2000:] + r.stderr[-2000:])
    (wa, ca), (wb, cb) = res.values()
    print(host.stop().describe())
    print(f"wall before/after {wb / wa:.2f}x")
    print(host.bench("llama_compile", "cpu_ratio", cb / ca, 1.5, cb / ca >= 1.5, ".2f"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--outputs", default="/tmp/llama_outputs.json", help="where this build's greedy outputs go")
    ap.add_argument("--compare", default=None, help="another build's outputs file")
    ap.add_argument("--compile", action="store_true", help="time the wheel build, after vs before")
    ap.add_argument("--sdist", default=None, help="a local llama-cpp-python sdist (default: from the registry)")
    a = ap.parse_args()
    host = Host.start()
    compile_times(a, host) if a.compile else outputs(a, host)


if __name__ == "__main__":
    main()
