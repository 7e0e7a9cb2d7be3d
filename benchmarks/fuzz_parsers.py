"""Fuzz every parser of model text with hostile inputs; count crashes and inputs that take over 2 s (issue 14).

`.venv/bin/python benchmarks/fuzz_parsers.py [--n 10000] [--seed 0]`: for each parser, `--n` generated inputs —
mutations of real outputs (PTP traces and BBH answers of the paper's logs, DeltaBench and ProcessBench chains turned
into critic answers, ScienceQA GPT-3 outputs, belief trajectories; from `$RI_DATA_DIR`, with built-in examples as a
fallback), deep nesting, NUL bytes, lone surrogates, invalid UTF-8 decoded with `surrogateescape`, code payloads,
huge integers, inf/nan, runs of white space, and `max(1, n // 1000)` inputs of 1-10 MB. Each call is timed alone.

A *crash* is an exception out of the parser, a lone surrogate in any string of its result (it would crash the next
encoder: a cache key, a report), or a code-execution event: an audit hook (`sys.addaudithook`) records `os.system`,
`subprocess.Popen`, `os.exec*`, `os.posix_spawn`, `os.spawn*`, `os.fork`, an `exec` of a code object that is not
from the standard library, site-packages or this repository, and any `open` for writing, while a parser runs; the
payloads write canary files, which must not exist afterwards. A *hang* is a call over 2 s (a call still running after
30 s is interrupted and counted); where a row makes several calls on each input (the answer extractors), each is timed
alone and the table shows the slowest call per input. The script ends with `BENCH fuzz_parsers crashes=<n> hangs=<n> target=0 ok|short`.
"""
import argparse, dataclasses, glob, json, math, os, random, re, signal, statistics, sys, tempfile, time, warnings
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
os.environ.setdefault("RI_DATA_DIR", os.path.join(ROOT, "..", "shared", "data"))
import pandas as pd
from reasoning_integrity.signals.verify import check_step, number_support
from reasoning_integrity.lines.trajectory.types import parse_trajectory, example_trajectory_json, BeliefState, state_json
from reasoning_integrity.lines.ptp.traces import (read_program, parse_trace, check_steps, extract_ptp_answer, extract_cot_answer,
                                             extract_direct_answer, normalize_target, normalize_answer, is_correct)
from reasoning_integrity.lines.long_cot.critic import (parse_section_list, parse_first_error, parse_delta_official,
                                                  read_delta_answer, parse_pb_official, read_pb_answer)
from reasoning_integrity.lines.alignment.scos import extract_chain, format_chain
from reasoning_integrity.lines.trajectory.tasks import check_answer, answer_matches, rep_problems
from reasoning_integrity.logs.readers import read_log, LogReadError
from _host import Host

HANG_S, KILL_S = 2.0, 30
CANARY_DIR = os.path.join(tempfile.gettempdir(), "ri_fuzz_canary")   # a fixed name: the payloads are the same text in every run
os.makedirs(CANARY_DIR, exist_ok=True)
for _f in os.listdir(CANARY_DIR): os.remove(os.path.join(CANARY_DIR, _f))
DATA = os.environ["RI_DATA_DIR"]

# ---- real outputs ---------------------------------------------------------------------------------------------------
FALLBACK_PROG = "from typing import List\ndef f(x: int) -> int:\n  ...\ndef g(s: str) -> List[str]:\n  ...\n"

def _json(rel):
    with open(os.path.join(DATA, rel), encoding="utf-8") as f: return json.load(f)

def load_real(notes):
    "Real outputs per parser family: lists of (text, context)."
    R = {}
    try:
        from reasoning_integrity.lines.ptp.logs import load_tune_logs
        R["ptp"] = [(e.output, prog) for lg in load_tune_logs().values() for prog in [read_program(lg.program)]
                    for e in lg.examples]
        R["ptp_answers"] = [(e.output, e.target) for _, lg in load_tune_logs().items() for e in lg.examples]
        notes.append(f"PTP tune logs: {len(R['ptp'])} traces")
    except Exception as e:   # no data: the built-in examples only
        notes.append(f"PTP logs not read ({type(e).__name__}); built-in trace")
        p = read_program(FALLBACK_PROG)
        R["ptp"] = [("Calling f(3)...\n...f returned 4\nCalling g('a b')...\n...g returned ['a', 'b']\nFinal answer: (B)", p)]
        R["ptp_answers"] = [(R["ptp"][0][0], "(B)")]
    cot = []
    for fn in sorted(glob.glob(os.path.join(DATA, "bbh/code-davinci-002-outputs/code-davinci-002-cot/*template_0-255000.json"))):
        try: cot += [(o["prediction"], o["target"]) for o in json.load(open(fn, encoding="utf-8"))["outputs"][:40]]
        except (OSError, ValueError, KeyError, TypeError): pass
    notes.append(f"BBH code-davinci-002 CoT answers: {len(cot)}")
    R["answers"] = R["ptp_answers"] + (cot or [("So 3 * 12 = 36. So the answer is 36.", "36")])
    delta, pb = [], []
    try:
        for d in _json("deltabench/Deltabench_v1_first10_sp21412.json"):
            errs = d.get("reason_error_section_numbers") or []
            secs = d.get("sections_content") or ""
            expl = secs[:400].replace("\n", " ")
            delta.append(("Conclusion: " + ("yes" if errs else "no error") + "".join(
                f"\nError Section Number: {k}\nExplanation: {expl}" for k in errs), len(errs) + 30))
            delta.append((f"Sections with mistakes: {', '.join(map(str, errs)) or 'none'}\n\n{expl}", 30))
            delta.append((secs[:20000], 30))
        notes.append(f"DeltaBench: {len(delta) // 3} chains as critic answers")
    except (OSError, ValueError) as e: notes.append(f"DeltaBench not read ({type(e).__name__})")
    try:
        for d in _json("processbench/dataset/gsm8k.json")[:200]:
            steps, lab = d["steps"], d["label"]
            pb.append(("\n".join(f"Paragraph {i}: {s}" for i, s in enumerate(steps)) + f"\nThe earliest error: \\boxed{{{lab}}}", len(steps)))
            pb.append((f"{lab}\nParagraph {max(lab, 0)} is where it goes wrong.", len(steps)))
        notes.append(f"ProcessBench gsm8k: {len(pb) // 2} solutions as critic answers")
    except (OSError, ValueError, KeyError, TypeError) as e: notes.append(f"ProcessBench not read ({type(e).__name__})")
    R["critic"] = delta or [("Conclusion: yes\nError Section Number: 4\nExplanation: 3 * 4 is 12.\nSections 2, 5-6 are wrong.", 30)]
    R["pb"] = pb or [("Paragraph 1 adds the wrong numbers.\n\\boxed{1}", 10)]
    chains = []
    try:
        outs = _json("scienceqa/results/gpt3/final_test_QCM-ALE_2_seed_3.json")["outputs"]
        chains += [(v, ["physical change", "chemical change"]) for v in list(outs.values())[:300]]
        notes.append(f"ScienceQA GPT-3 outputs: {len(chains)}")
    except (OSError, ValueError, KeyError, TypeError) as e: notes.append(f"ScienceQA not read ({type(e).__name__})")
    for t, _ in pb[::2][:100]:
        steps = [l.split(": ", 1)[-1] for l in t.split("\n")[:-1]]
        if len(steps) >= 2: chains.append((format_chain(steps, "B"), None))
    R["chain"] = chains or [(format_chain(["Birds have wings.", "Wings let birds fly."], "B"), None)]
    trajs = [(example_trajectory_json(f), None) for f in ("parallel", "paired")]
    for t, _ in pb[::2][:150]:   # a trajectory whose constraints are a solution's steps
        steps = [l.split(": ", 1)[-1] for l in t.split("\n")[:-1]][:6]
        states = [BeliefState(["x", "y"], [0.7, 0.3], steps[:i + 1]) for i in range(len(steps))]
        form = random.Random(len(t)).choice(["parallel", "paired"])
        body = json.dumps({"steps": [state_json(s, form) for s in states], "answer": "x"})
        trajs.append((f"Here is my reasoning:\n```json\n{body}\n```\nThe answer is x.", None))
    R["traj"] = trajs
    R["rep"] = [(t.answer, t.choices) for t in rep_problems(40)]
    return {k: sorted(v, key=lambda x: x[0]) for k, v in R.items()}   # the same inputs in every process for a seed

# ---- hostile inputs -------------------------------------------------------------------------------------------------
PAYLOADS = [f"__import__('os').system('touch {CANARY_DIR}/system')", f"open('{CANARY_DIR}/open', 'w').write('x')",
            f"exec(\"open('{CANARY_DIR}/exec','w')\")", f"__import__('subprocess').Popen(['touch', '{CANARY_DIR}/popen'])",
            f"eval(compile('open(\"{CANARY_DIR}/eval\",\"w\")', 's', 'exec'))", "().__class__.__base__.__subclasses__()",
            f"[c for c in ().__class__.__base__.__subclasses__() if c.__name__ == 'Popen'][0](['touch', '{CANARY_DIR}/sub'])"]
SURR = ["\ud83d", "\udc80", "\udfff", "\ud800\ud800", "\ude00"]
WORDS = ["Calling f(", ")...", "...f returned ", "Final answer: ", "section ", "sections ", "§", "step ", "paragraph ",
         "\\boxed{", "}", "Conclusion: yes", "Error Section Number: ", "Explanation: ", "Step 1: ", "Conclusion: ",
         "Answer: ", "the answer is ", "answer is ", "= ", " not ", " or ", " to ", "-", ", ", "```json", "```",
         '{"steps": [', '{"hypotheses": [', '"confidence": [', "]", "[", "{", "'", '"', "\\", "\n", "\t", " and "]

def size(rng, lo, hi): return int(10 ** rng.uniform(math.log10(lo), math.log10(hi)))   # log-uniform: mostly small, some large

def big_int(rng): return rng.choice(["", "-"]) + "9" * rng.randint(4_300, 6_000)
def nonfinite(rng): return rng.choice(["inf", "-inf", "nan", "NaN", "Infinity", "-Infinity", "1e999", "1e309", "0e0", "1E400"])

def fragment(rng):
    "One hostile fragment."
    k = rng.random()
    if k < .15: return rng.choice("[{(") * size(rng, 100, 200_000)                              # deep nesting
    if k < .22: return rng.choice(["-", "not ", "1+", "~", "*", "("]) * size(rng, 100, 50_000)
    if k < .32: return rng.choice(SURR) * rng.randint(1, 20)
    if k < .40: return "\x00" * rng.randint(1, 50)
    if k < .48: return bytes(rng.randrange(128, 256) for _ in range(rng.randint(1, 40))).decode("utf-8", "surrogateescape")
    if k < .58: return rng.choice(PAYLOADS)
    if k < .66: return big_int(rng)
    if k < .72: return nonfinite(rng)
    if k < .80: return rng.choice([" ", "\t", "\u00a0", "\n", " \n"]) * size(rng, 500, 50_000)   # white space bombs
    if k < .90: return " ".join(map(str, range(1, size(rng, 10, 3000)))) + rng.choice([" are wrong", " x", ".", ""])
    return "".join(rng.choice(WORDS) for _ in range(rng.randint(1, 3))) * size(rng, 1, 20_000)

def mutate(s, rng):
    "A real output with a few hostile edits."
    for _ in range(rng.randint(1, 6)):
        i, op = rng.randint(0, len(s)), rng.random()
        if op < .35: s = s[:i] + fragment(rng) + s[i:]
        elif op < .45: s = s[:i] + s[i + rng.randint(1, 200):]
        elif op < .55: s = s[:i] + s[i:i + rng.randint(1, 200)] * rng.randint(2, 200) + s[i:]
        elif op < .60: s = s[:i]
        elif op < .70: s = re.sub(r"\d+", lambda m: rng.choice([big_int(rng), nonfinite(rng), "1" * 12]), s, count=rng.randint(1, 3))
        elif op < .78: s = s.replace(" ", " " * size(rng, 500, 5_000), rng.randint(1, 5))
        elif op < .86: s = s[:i] + rng.choice(SURR + ["\x00"]) + s[i:]
        elif op < .93:   # invalid UTF-8, decoded as a backend reading bytes with surrogateescape would
            b = bytearray(s.encode("utf-8", "surrogatepass"))
            for _ in range(rng.randint(1, 8)):
                if b: b[rng.randrange(len(b))] = rng.randrange(128, 256)
            s = bytes(b).decode("utf-8", "surrogateescape")
        else: s = s[:i] + rng.choice(PAYLOADS) + s[i:]
    return s

def big_input(rng, real):
    "1-10 MB: a real output or a hostile fragment repeated to size."
    size = rng.randint(1_000_000, 10_000_000)
    unit = rng.choice([real, fragment(rng)[:50_000] or "x", mutate(real, rng)[:50_000] or "x"])
    return (unit * (size // max(len(unit), 1) + 1))[:size]

def inputs(rng, samples, n):
    "n (text, context) pairs: mutations, pure fragments, big inputs."
    n_big = max(1, n // 1000)
    big_at = set(rng.sample(range(n), min(n_big, n)))
    for j in range(n):
        text, ctx = rng.choice(samples)
        if j in big_at: yield big_input(rng, text), ctx; continue
        k = rng.random()
        if k < .70: yield mutate(text, rng), ctx
        elif k < .85: yield "".join(fragment(rng) if rng.random() < .7 else rng.choice(WORDS) for _ in range(rng.randint(1, 6))), ctx
        else: yield text, ctx   # the real output as it is (the parsers must still read these)

# ---- the parsers ----------------------------------------------------------------------------------------------------
def _ptp(t, prog):
    pt = parse_trace(t, prog)
    return pt, check_steps(pt, prog)

_ANSWERS = [   # context: (BBH/PTP target, (REP gold, REP choices))
    lambda t, c: extract_ptp_answer(t), lambda t, c: extract_ptp_answer(t, "last"), lambda t, c: extract_cot_answer(t),
    lambda t, c: extract_direct_answer(t), lambda t, c: normalize_answer(t, c[0]), lambda t, c: normalize_target(t),
    lambda t, c: is_correct(t, c[0]), lambda t, c: is_correct(t, c[0], "project"),
    lambda t, c: check_answer(t, c[1][0], c[1][1] or None), lambda t, c: answer_matches(t, c[1][0], c[1][1] or None)]

LOG_DIR = tempfile.mkdtemp(prefix="ri_fuzz_logs")

def _log(t, _):
    "The input as one line of a log (four shapes: the raw text, chat, lm-eval, generic JSONL), read by `read_log`."
    ACTIVE[0] = False   # writing the log file is the harness's doing, not the reader's
    k = len(t) % 4
    line = (t if k == 0 else json.dumps({"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": t}]}) if k == 1
            else json.dumps({"doc_id": 0, "doc": {"question": t[:50]}, "resps": [[t]], "filtered_resps": [t[-20:]]}) if k == 2
            else json.dumps({"id": "x", "question": t[:80], "steps": t.split("\n")}))
    p = os.path.join(LOG_DIR, "samples_t_2026-01-01T00-00-00.jsonl" if k == 2 else "log.jsonl")
    with open(p, "wb") as f: f.write(line.encode("utf-8", "surrogatepass") + b"\n" + json.dumps({"id": "y", "chain": "ok"}).encode())
    ACTIVE[0] = True
    try: return read_log(p)
    except LogReadError as e: return str(e)   # a refusal is an answer, not a crash

PARSERS = [  # (name shown, family of real outputs, the calls made on each input: functions of (text, context))
    ("parse_trace + check_steps", "ptp", [_ptp]),
    ("parse_section_list", "critic", [lambda t, n: parse_section_list(t, n)]),
    ("parse_first_error", "pb", [lambda t, n: parse_first_error(t, n)]),
    ("parse_delta_official, read_delta_answer", "critic", [lambda t, n: parse_delta_official(t), lambda t, n: read_delta_answer(t, n)]),
    ("parse_pb_official, read_pb_answer", "pb", [lambda t, n: parse_pb_official(t), lambda t, n: read_pb_answer(t, n)]),
    ("scos.extract_chain", "chain", [lambda t, ch: extract_chain(t, ch, "Step 1:" if len(t) % 2 else "")]),
    ("parse_trajectory", "traj", [lambda t, _: parse_trajectory(t)]),
    ("verify.check_step, number_support", "pb", [lambda t, n: check_step(t), lambda t, n: number_support(t[:5000], [t])]),
    ("answer extractors (10 calls: ptp, check_answer)", "answers", _ANSWERS),
    ("log readers (read_log of a JSONL line: raw, chat, lm-eval, steps)", "chain", [_log]),
]

def strings(x, depth=0):
    "Every string in a result (dataclasses, containers, DataFrames)."
    if depth > 12: return
    if isinstance(x, str): yield x
    elif isinstance(x, pd.DataFrame):
        for c in x.columns: yield from strings(list(x[c]), depth + 1)
    elif dataclasses.is_dataclass(x) and not isinstance(x, type):
        for f in dataclasses.fields(x): yield from strings(getattr(x, f.name), depth + 1)
    elif isinstance(x, dict):
        for k, v in x.items(): yield from strings(k, depth + 1); yield from strings(v, depth + 1)
    elif isinstance(x, (list, tuple, set, frozenset)):
        for v in x: yield from strings(v, depth + 1)

def has_surrogate(result):
    for s in strings(result):
        try: s.encode("utf-8")
        except UnicodeEncodeError: return True
    return False

# ---- the code-execution guard ---------------------------------------------------------------------------------------
ALLOWED_CODE = tuple({os.path.join(os.path.realpath(p), "") for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, ROOT)})
DANGER = {"os.system", "subprocess.Popen", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "pty.spawn",
          "os.startfile", "os.kill", "os.remove", "os.rename", "shutil.rmtree", "socket.connect", "urllib.Request"}
EVENTS, ACTIVE = [], [False]

def _hook(event, args):
    if not ACTIVE[0]: return
    if event in DANGER: EVENTS.append((event, repr(args)[:120]))
    elif event == "exec":
        f = getattr(args[0], "co_filename", "?")
        if not (f.startswith("<frozen") or (os.path.isabs(f) and os.path.realpath(f).startswith(ALLOWED_CODE))):
            EVENTS.append((event, f))
    elif event == "open":
        path, mode, flags = (list(args) + [None, None, None])[:3]
        writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
            isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT))
        if writing and "__pycache__" not in str(path): EVENTS.append((event, f"{path!r} mode={mode!r}"))

class Interrupted(BaseException): pass     # not an Exception: no parser's `except Exception` can swallow it
def _alarm(*_): raise Interrupted()

# ---- the run --------------------------------------------------------------------------------------------------------
def run(n, seed):
    notes = []
    t_load = time.perf_counter(); real = load_real(notes)
    real["answers"] = [(t, (tg, real["rep"][i % len(real["rep"])])) for i, (t, tg) in enumerate(real["answers"])]
    print(f"real outputs ({time.perf_counter() - t_load:.1f} s): " + "; ".join(notes), flush=True)
    for name, fam, calls in PARSERS:                   # warm up: lazy imports happen before the guard is on
        for f in calls: f(*real[fam][0])
    warnings.simplefilter("ignore", SyntaxWarning)   # `ast` warns about odd literals it still rejects or reads
    sys.addaudithook(_hook)
    ACTIVE[0] = True     # the guard sees code run and files written: one of each, deliberately, before the run
    exec(compile("_ = 1", "<guard self-check>", "exec"), {})
    with open(os.path.join(CANARY_DIR, "self-check"), "w"): pass
    ACTIVE[0] = False
    assert [e for e, _ in EVENTS] == ["exec", "open"], EVENTS
    os.remove(os.path.join(CANARY_DIR, "self-check")); EVENTS.clear()
    print("code-execution guard: on (self-check recorded an exec and a write)", flush=True)
    signal.signal(signal.SIGALRM, _alarm)
    rows, examples, t0 = [], [], time.perf_counter()
    for pi, (name, fam, calls) in enumerate(PARSERS):
        rng = random.Random(f"{seed}-{pi}")
        times, crashes, surr, execs, hangs, biggest, n_big = [], 0, 0, 0, 0, 0, 0
        for text, ctx in inputs(rng, real[fam], n):
            biggest = max(biggest, len(text)); n_big += len(text) >= 1_000_000
            n_ev, slowest, bad = len(EVENTS), 0.0, None
            for f in calls:   # each call timed alone: a hang is one call over HANG_S
                signal.setitimer(signal.ITIMER_REAL, KILL_S)
                ACTIVE[0] = True
                t = time.perf_counter()
                try: res, err = f(text, ctx), None
                except Interrupted: res, err = None, "interrupted"
                except BaseException as e: res, err = None, e   # MemoryError, RecursionError, ...: all crashes
                dt = time.perf_counter() - t
                ACTIVE[0] = False
                signal.setitimer(signal.ITIMER_REAL, 0)
                slowest = max(slowest, dt if err != "interrupted" else KILL_S)
                if bad is None and err not in (None, "interrupted"): bad = f"{type(err).__name__}: {str(err)[:80]}"
                elif bad is None and err is None and has_surrogate(res): bad = "lone surrogate in the result"; surr += 1
            times.append(slowest)
            where = (f"{len(text):,} chars", ascii(text[:60]))
            if slowest > HANG_S: hangs += 1; examples.append((name, f"{slowest:.2f} s", *where))
            if len(EVENTS) > n_ev: execs += 1; bad = bad or f"code execution: {EVENTS[n_ev:][:2]}"
            if bad: crashes += 1; examples.append((name, bad, *where))
        ts = sorted(times)
        rows.append(dict(parser=name, inputs=len(times), crashed=crashes, surrogate_out=surr, code_exec=execs,
                         hung_over_2s=hangs, calls=len(calls), median_ms=round(1e3 * statistics.median(ts), 2),
                         p99_ms=round(1e3 * ts[int(.99 * (len(ts) - 1))], 1), max_s=round(ts[-1], 3),
                         inputs_1_10MB=n_big, largest_MB=round(biggest / 1e6, 1)))
        print(f"  {name}: {len(times)} inputs, {crashes} crashed, {hangs} over {HANG_S:.0f} s, slowest {ts[-1]:.2f} s "
              f"({time.perf_counter() - t0:.0f} s so far)", flush=True)
    canaries = sorted(os.listdir(CANARY_DIR))
    return pd.DataFrame(rows), examples, canaries, time.perf_counter() - t0

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=10_000, help="inputs per parser (default 10,000)")
    ap.add_argument("--seed", default="0", help="seed of the generated inputs")
    a = ap.parse_args()
    host = Host.start()
    df, examples, canaries, wall = run(a.n, a.seed)
    print()
    print(df.to_markdown(index=False))
    print(f"\n{int(df.inputs.sum()):,} inputs in {wall:.0f} s; canary files written: {len(canaries)} {canaries or ''}; "
          f"code-execution events: {int(df.code_exec.sum())}")
    for e in examples[:20]: print("  ", " | ".join(e))
    crashes, hangs = int(df.crashed.sum()) + len(canaries), int(df.hung_over_2s.sum())
    print(host.stop().describe())
    # a crash is a crash on any machine; a hang (a call over 2 s) is a timing, judged only on a quiet machine
    print(host.bench("fuzz_parsers", "crashes", f"{crashes} hangs={hangs}", 0, crashes == 0 and hangs == 0,
                     timed=crashes == 0))

if __name__ == "__main__":
    main()
