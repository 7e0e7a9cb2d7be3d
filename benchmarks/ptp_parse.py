"""Parse all 690 tune-split PTP traces of the paper's logs (23 tasks x 30): target under 1 s on this machine.

Baseline measured in the same process: splitting the same texts into lines (the floor any line parser pays).
Also reported, not targeted: `check_steps` (syntax via ast.literal_eval, types via typeguard) on the same traces.
"""
import os, time
os.environ.setdefault("RI_DATA_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data"))
from reasoning_integrity.lines.ptp.logs import load_tune_logs
from reasoning_integrity.lines.ptp.traces import read_program, parse_trace, check_steps
from _host import Host

host = Host.start()

logs = load_tune_logs()
items = [(read_program(lg.program), e.output) for lg in logs.values() for e in lg.examples]
assert len(items) == 690, len(items)

def best(f, reps=3):
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter(); f(); ts.append(time.perf_counter() - t0)
    return min(ts)

t_base = best(lambda: [text.split("\n") for _, text in items])
t_parse = best(lambda: [parse_trace(text, prog) for prog, text in items])
t_check = best(lambda: [check_steps(parse_trace(text, prog), prog) for prog, text in items], reps=1)
n_steps = sum(len(parse_trace(t, p).steps) for p, t in items)
print(f"traces={len(items)} steps={n_steps}")
print(f"baseline line split: {t_base*1e3:.1f} ms")
print(f"parse_trace:         {t_parse*1e3:.1f} ms  ({t_parse/t_base:.1f}x the line split)")
print(f"parse+check_steps:   {t_check*1e3:.1f} ms  (syntax + typeguard; not targeted)")
print(host.stop().describe())
print(host.bench("ptp_parse", "seconds", t_parse, 1.0, t_parse < 1.0, ".3f"))
