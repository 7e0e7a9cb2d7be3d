"""The host a benchmark runs on: its CPUs, how busy other work keeps them, and whether a verdict can be given.

A benchmark's figures are only comparable with a target on a machine that other work leaves alone: on C cores, a
benchmark that uses all of them while other processes keep L cores busy gets about C / (C + L) of the machine, and
a ratio of a parallel run to a serial one (scale_out) loses more, since the serial baseline still finds a free
core. `benchmarks/scale_out.py` read 1.02x for two NLI actors on a busy machine and 1.85x on a quiet one.

`Host` takes two readings of *other* work:

- before the benchmark starts: the CPU time the whole machine spends over a short sample (`/proc/stat`, nothing of
  the benchmark running yet), and the 1-minute load average beside it (printed; it lags by about a minute, so a
  job that just ended still shows in it, which is why the sample decides);
- over the benchmark: the machine's CPU time minus the benchmark's own (this process, its reaped children and its
  descendants still running at the end), divided by the wall time: the cores other processes kept busy.

A verdict (`ok`/`short`) is given only when both readings are at most `BUSY_FRACTION` x the CPUs: 0.25, i.e. half a
core of other work on a 2-core machine. At that limit a benchmark on all cores keeps at least C / (C + C/4) = 80 %
of the machine; at the issue's example of 0.5 x cores it could keep only 67 %, enough to turn scale_out's 1.85x into
a misleading `short`. Above it the BENCH line says `busy: not measured` and the figure is printed for the record
only. Where `/proc/stat` is missing (not Linux), the load average at the start stands in for both readings.

    from _host import Host
    host = Host.start()                 # before anything heavy; waits up to `wait` s for other work to calm down
    ...                                 # the benchmark
    host.stop()
    print(host.describe())              # CPUs, load averages, other work before and during
    print(host.bench("scale_out_nli", "ratio", 1.83, 1.6, ok=1.83 >= 1.6))
"""
import os, resource, subprocess, sys, time
from dataclasses import dataclass, field

BUSY_FRACTION = 0.25   # other work above this share of the CPUs: no verdict (see the module's docstring)
BUSY = "busy: not measured"


def cpus() -> int:
    "CPUs this process may run on (its affinity mask where the OS has one)."
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def loadavg() -> tuple[float, float, float]:
    "The 1-, 5- and 15-minute load averages (NaNs where the OS has none)."
    try: return os.getloadavg()
    except (OSError, AttributeError): return (float("nan"),) * 3


def _ticks() -> float:
    "Seconds of CPU time since boot, all CPUs together, as /proc/stat counts it (user, nice, system, irq, softirq, steal)."
    with open("/proc/stat") as f: parts = f.readline().split()
    v = [int(x) for x in parts[1:]]
    return (v[0] + v[1] + v[2] + v[5] + v[6] + (v[7] if len(v) > 7 else 0)) / os.sysconf("SC_CLK_TCK")


def _own_cpu() -> float:
    "CPU seconds of this process and of its children it has reaped (their whole reaped trees)."
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def _live_descendants_cpu(root: int | None = None) -> dict[int, float]:
    "CPU seconds so far of every running descendant of `root` (this process), from /proc: {pid: seconds}."
    root = os.getpid() if root is None else root
    parent, cpu, tck = {}, {}, os.sysconf("SC_CLK_TCK")
    for p in os.listdir("/proc"):
        if not p.isdigit(): continue
        try:
            with open(f"/proc/{p}/stat") as f: s = f.read()
        except OSError: continue
        rest = s[s.rfind(")") + 2:].split()    # the command name may hold spaces and parentheses
        parent[int(p)], cpu[int(p)] = int(rest[1]), (int(rest[11]) + int(rest[12])) / tck
    out = {}
    for pid in cpu:
        q, seen = pid, 0
        while q in parent and q != root and seen < 64: q, seen = parent[q], seen + 1
        if q == root and pid != root: out[pid] = cpu[pid]
    return out


def others_busy(machine_cpu_s: float, own_cpu_s: float, wall_s: float, n_cpus: int | None = None) -> float:
    """Cores other work kept busy on average: the machine's CPU seconds minus the benchmark's own, over the wall time
    (at most `n_cpus`: /proc/stat counts in ticks of 10 ms, which over a short interval can read more)."""
    if wall_s <= 0: return float("nan")
    v = max(machine_cpu_s - own_cpu_s, 0.0) / wall_s
    return min(v, n_cpus) if n_cpus else v


def is_busy(others: float, n_cpus: int, fraction: float = BUSY_FRACTION) -> bool:
    "Whether other work (in cores, on average) is too much for a verdict on `n_cpus` CPUs; an unknown reading (NaN) is not busy."
    return others == others and others > fraction * n_cpus


def verdict(ok: bool, busy: bool) -> str:
    "`ok`/`short`, or `busy: not measured` when the machine was busy."
    return BUSY if busy else ("ok" if ok else "short")


@dataclass
class Host:
    "Readings of the machine around one benchmark run (see the module's docstring)."
    n_cpus: int
    load_start: tuple
    others_before: float            # cores busy with other work in the sample before the start (NaN: unknown)
    t0: float = 0.0
    machine0: float = float("nan")
    own0: float = 0.0
    live0: dict = field(default_factory=dict)
    load_end: tuple | None = None
    others_during: float = float("nan")
    wall_s: float = float("nan")
    fraction: float = BUSY_FRACTION

    @classmethod
    def start(cls, sample_s: float = 3.0, # seconds of /proc/stat sampled before the start
              wait: float = 120.0, # seconds to wait at most for other work to fall under the limit (0: do not wait)
              fraction: float = BUSY_FRACTION, # the busy limit, a share of the CPUs
              quiet: bool = False, # say nothing while waiting
             ) -> "Host":
        "Read the machine before a benchmark; while other work is over the limit, re-read every `sample_s` for up to `wait` s."
        n, deadline, said = cpus(), time.monotonic() + wait, False
        while True:
            others = cls.sample(sample_s)
            if not is_busy(others, n, fraction) or time.monotonic() >= deadline: break
            if not (quiet or said):
                print(f"host: other work keeps {others:.2f} of {n} CPUs busy (limit {fraction * n:.2f}); waiting up to "
                      f"{wait:.0f} s for it to calm down", file=sys.stderr, flush=True)
                said = True
        h = cls(n_cpus=n, load_start=loadavg(), others_before=others, fraction=fraction)
        h.t0, h.own0, h.live0 = time.perf_counter(), _own_cpu(), cls._live()
        try: h.machine0 = _ticks()
        except OSError: pass
        return h

    @staticmethod
    def sample(seconds: float = 3.0) -> float:
        "Cores busy over the next `seconds` (this process idle meanwhile), from /proc/stat; elsewhere the 1-minute load average."
        try:
            m0, o0, t0 = _ticks(), _own_cpu(), time.perf_counter()
            time.sleep(seconds)
            return others_busy(_ticks() - m0, _own_cpu() - o0, time.perf_counter() - t0, cpus())
        except OSError:
            return loadavg()[0]

    @staticmethod
    def _live() -> dict:
        try: return _live_descendants_cpu()
        except OSError: return {}

    def stop(self) -> "Host":
        "Read the machine after the benchmark: other work over its wall time."
        self.wall_s = time.perf_counter() - self.t0
        self.load_end = loadavg()
        live = self._live()
        own = _own_cpu() - self.own0 + sum(c - self.live0.get(p, 0.0) for p, c in live.items())
        if self.machine0 == self.machine0:
            try: self.others_during = others_busy(_ticks() - self.machine0, own, self.wall_s, self.n_cpus)
            except OSError: pass
        if self.others_during != self.others_during and self.others_before == self.others_before:
            self.others_during = max(self.load_end[0] - own / self.wall_s, 0.0)   # no /proc/stat: the load average
        return self

    @property
    def busy(self) -> bool:
        "Other work over the limit before the start or during the run."
        return is_busy(self.others_before, self.n_cpus, self.fraction) or is_busy(self.others_during, self.n_cpus, self.fraction)

    def verdict(self, ok: bool) -> str:
        "`ok`/`short`, or `busy: not measured`."
        return verdict(ok, self.busy)

    def describe(self) -> str:
        "One line: CPUs, the load averages at the start and the end, and the other work before and during the run."
        la = lambda t: "/".join(f"{x:.2f}" for x in t) if t else "?"
        return (f"host: {self.n_cpus} CPUs; load average (1/5/15 min) {la(self.load_start)} at start, "
                f"{la(self.load_end)} at end; other work {self.others_before:.2f} CPUs before, "
                f"{self.others_during:.2f} during ({self.wall_s:.0f} s; limit {self.fraction * self.n_cpus:.2f})"
                + (" -> busy" if self.busy else ""))

    def bench(self, name: str, # the benchmark's name
              metric: str, # what is measured
              value, # its value
              target, # the target printed beside it
              ok: bool, # whether the value meets the target
              fmt: str = "", # format of the value (e.g. ".2f")
              timed: bool = True, # False for a figure the machine's load cannot change (a count, an accuracy): always ok|short
             ) -> str:
        "A BENCH line: `BENCH <name> <metric>=<value> target=<target> ok|short`, or `... busy: not measured (...)` for a timed figure on a busy machine."
        v = format(value, fmt) if fmt else value
        if not timed: return f"BENCH {name} {metric}={v} target={target} {'ok' if ok else 'short'}"
        tail = self.verdict(ok)
        if self.busy: tail += f" (other work {max(self.others_before, self.others_during):.2f} of {self.n_cpus} CPUs)"
        return f"BENCH {name} {metric}={v} target={target} {tail}"


def fp32_ceiling(processes: int = 1, # processes at once, one torch thread each
                 seconds: float = 2.0, # how long each multiplies, all at the same time
                 n: int = 1024, # matrix size
                ) -> float:
    """The fp32 matrix-product ceiling: GFLOP/s of `torch.mm` on n x n matrices summed over `processes` processes of
    one torch thread each, all multiplying during the same `seconds` (they start together once all have loaded torch).
    One process against as many as CPUs tells how much parallel compute the machine gives right now: the ceiling of a
    scale-out ratio."""
    code = ("import sys, time, torch; torch.set_num_threads(1); n = %d; a, b = torch.randn(n, n), torch.randn(n, n); "
            "torch.mm(a, b); print('ready', flush=True); sys.stdin.readline(); k, t0 = 0, time.perf_counter()\n"
            "while time.perf_counter() - t0 < %r: torch.mm(a, b); k += 1\n"
            "print(2 * n ** 3 * k / (time.perf_counter() - t0) / 1e9, flush=True)") % (n, seconds)
    ps = [subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
          for _ in range(processes)]
    for p in ps: p.stdout.readline()            # every process has loaded torch and multiplied once
    for p in ps: p.stdin.write("go\n"); p.stdin.flush()
    return sum(float(p.communicate()[0].strip() or "nan") for p in ps)
