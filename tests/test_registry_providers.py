"""Every component is reachable by name from a fresh process: the providers declared in settings.ini
(`component_modules`, the entry-point group `reasoning_integrity.components`) register exactly what importing every
module of the package registers, and a registry imports them on a name it does not know yet."""
import configparser, json, subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SNAPSHOT = """
import json
from reasoning_integrity.core.registry import Registry
print(json.dumps({k: sorted(map(str, r)) for k, r in Registry.ALL.items()}))
"""


def _run(code):
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout


def test_providers_are_the_settings_and_installed():
    cfg = configparser.ConfigParser(delimiters=["="]); cfg.read(ROOT / "settings.ini")
    declared = cfg["DEFAULT"]["component_modules"].split()
    out = json.loads(_run("import json; from importlib.metadata import entry_points\n"
                          "print(json.dumps(sorted((e.name, e.value) for e in entry_points(group='reasoning_integrity.components'))))"))
    assert [tuple(e) for e in out] == sorted((f"{i:02d}.{m}", f"reasoning_integrity.{m}") for i, m in enumerate(declared))   # NN: the declared order
    assert all((ROOT / "reasoning_integrity" / (m.replace(".", "/") + ".py")).exists() for m in declared)


def test_providers_register_what_every_module_registers():
    "A module that registers a component but is not a provider would make its names unknown in a fresh process."
    via_providers = json.loads(_run("from reasoning_integrity.core.registry import load_providers\n"
                                    "assert load_providers() == {}\n" + SNAPSHOT))
    mods = sorted(".".join(p.relative_to(ROOT).with_suffix("").parts) for p in (ROOT / "reasoning_integrity").rglob("*.py")
                  if p.name not in ("__init__.py", "_modidx.py"))
    via_all = json.loads(_run("import importlib\n" + "".join(f"importlib.import_module({m!r})\n" for m in mods) + SNAPSHOT))
    assert via_providers == via_all
    assert {"llm_backend", "nli_model", "answer_extractor", "signal", "chain_operator", "delta", "rep_perturbation",
            "section_scorer", "log_reader", "segmenter"} <= set(via_all)
    assert {"script", "noisy-oracle", "replay", "pool"} <= set(via_all["llm_backend"])


def test_names_resolve_in_a_fresh_process():
    out = _run("from reasoning_integrity.models.llm import make_backend\n"
               "print(type(make_backend('noisy-oracle:n=2,seed=0')).__name__)\n"
               "from reasoning_integrity.core.text import extract_answer\n"
               "print(extract_answer('ptp-final', 'Final answer: (B)'))\n"
               "from reasoning_integrity.models.nli import get_nli\n"
               "print(type(get_nli('overlap')).__name__)\n"
               "from reasoning_integrity.lines.trajectory.divergence import DELTAS\n"
               "from reasoning_integrity.signals.registry import SIGNALS\n"
               "print(len(DELTAS) > 0, len(SIGNALS) > 0)\n")
    assert out.split() == ["NoisyOracle", "(B)", "OverlapNLI", "True", "True"]


def test_unknown_name_lists_known_ones():
    out = _run("from reasoning_integrity.core.text import extract_answer\n"
               "try: extract_answer('no-such-rule', 'x')\n"
               "except KeyError as e: print(e)\n")
    assert "unknown answer_extractor 'no-such-rule'; known: " in out and "ptp-final" in out


def test_listing_order_does_not_depend_on_what_was_imported_first():
    "Signals (and labelled sets) are listed in the providers' declared order: tables keep their rows whatever a session imported."
    code = "from reasoning_integrity.signals.registry import SIGNALS\nprint(' '.join(SIGNALS))\n"
    plain = _run(code).split()
    late = _run("import reasoning_integrity.signals.learned_verifier, reasoning_integrity.signals.combined, "
                "reasoning_integrity.signals.content\n" + code).split()
    assert plain == late and plain[:4] == ["random", "position", "length", "constant"] and plain[-1] == "learned_verifier"
    assert plain.index("loop") < plain.index("verified_computation") < plain.index("combined")
