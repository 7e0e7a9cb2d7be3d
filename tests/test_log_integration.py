"""`ri score` on logs written by the real tools, offline, against the project's own llama.cpp server.

- inspect_ai: `inspect eval` of a local task (twelve arithmetic questions from a local JSONL file) with inspect's
  OpenAI-compatible provider (`openai-api/local/...`) pointed at `python -m llama_cpp.server` serving Gemma 3 270M;
  then `ri score` of the `.eval` log it wrote, `ri view` of the report, two segmentations compared by `ri compare`,
  and `inspect score --scorer reasoning_integrity/integrity` re-scoring the log through the registered entry point.
- lm-evaluation-harness: `lm_eval --model local-chat-completions` against the same server on a local YAML task with
  `--log_samples`; then `ri score` of the `samples_<task>_<date>.jsonl` it wrote.
- Damaged input through the CLI: a truncated `.eval`, an unknown format, a log whose samples have no assistant text,
  a 100 MB JSONL read with `--limit` (streamed: the run stays far below the file's size in memory).
"""
import json, os, resource, subprocess, sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration   # real inspect_ai and lm-eval runs against a live llama.cpp server: make test-integration

from llama_server import llama_server

BIN = Path(sys.executable).parent
QUESTIONS = [(a, b) for a, b in [(2, 3), (4, 5), (7, 1), (6, 6), (3, 8), (9, 2), (5, 5), (8, 4), (1, 9), (7, 7), (6, 3), (2, 9)]]
CHEAP = "length,position,verified_computation,computation_error,answer_consistency,redundant_reasoning"


def _ri(*args, cwd, timeout=600):
    return subprocess.run([sys.executable, "-m", "reasoning_integrity.run.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, "TOKENIZERS_PARALLELISM": "false"})


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with llama_server(tmp_path_factory.mktemp("server"), "--n_ctx", "1024") as url:   # served as gemma3-270m (its alias)
        yield url


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    d = tmp_path_factory.mktemp("task")
    rows = [dict(id=f"q{i}", input=f"What is {a} + {b}? Work it out step by step, then give the answer.", target=str(a + b),
                 question=f"What is {a} + {b}?", answer=str(a + b)) for i, (a, b) in enumerate(QUESTIONS)]
    (d / "arith.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return d


@pytest.fixture(scope="module")
def inspect_log(server, data, tmp_path_factory):
    work = tmp_path_factory.mktemp("inspect")
    (work / "arith_task.py").write_text(f'''
from inspect_ai import Task, task
from inspect_ai.dataset import json_dataset
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import match
from inspect_ai.solver import generate

@task
def arith():
    return Task(dataset=json_dataset({str(data / "arith.jsonl")!r}), solver=[generate()], scorer=match(numeric=True),
                config=GenerateConfig(max_tokens=48, temperature=0.0))
''')
    env = {**os.environ, "LOCAL_BASE_URL": server, "LOCAL_API_KEY": "none", "INSPECT_LOG_DIR": str(work / "logs")}
    r = subprocess.run([str(BIN / "inspect"), "eval", "arith_task.py@arith", "--model", "openai-api/local/gemma3-270m",
                        "--display", "none", "--log-dir", str(work / "logs")], cwd=work, env=env, capture_output=True,
                       text=True, timeout=900)
    logs = sorted((work / "logs").glob("*.eval"))
    assert r.returncode == 0 and logs, f"inspect eval failed ({r.returncode}):\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}"
    return logs[-1]


@pytest.mark.timeout(1200)
def test_inspect_eval_then_ri_score(inspect_log, tmp_path):
    from inspect_ai.log import read_eval_log
    log = read_eval_log(str(inspect_log))
    assert log.status == "success" and len(log.samples) == 12
    r = _ri("score", str(inspect_log), "--name", "inspect-arith", "--signals", CHEAP, "--reports-dir", str(tmp_path / "reports"),
            "--no-progress", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    d = tmp_path / "reports" / "scored" / "inspect-arith"
    run = json.loads((d / "run.json").read_text())
    no_text = sum(1 for s in log.samples if not (s.output.completion or "").strip())
    assert (run["format"], run["n_items"]) == ("inspect", 12 - no_text)
    import hashlib
    assert run["input_sha256"] == hashlib.sha256(inspect_log.read_bytes()).hexdigest()
    import pandas as pd
    items = pd.read_csv(d / "tables" / "items.csv", dtype={"id": str})
    ids = {str(s.id) for s in log.samples if (s.output.completion or "").strip()}
    assert set(items.id) == ids
    # the log's own verdicts (inspect's match scorer) carried over, sample by sample
    verdict = {str(s.id): s.scores["match"].value == "C" for s in log.samples}
    assert all(bool(row.correct) == verdict[row.id] for row in items.itertuples())
    assert "samples of" in r.stdout and "report:" in r.stdout          # the headline table is printed
    v = _ri("view", "inspect-arith", "--reports-dir", str(tmp_path / "reports"), "--no-open", cwd=tmp_path)
    assert v.returncode == 0 and (d / "explorer.html").is_file(), v.stderr
    # two segmentations of the same log, compared by id
    r2 = _ri("score", str(inspect_log), "--name", "inspect-lines", "--segment", "lines", "--signals", CHEAP,
             "--reports-dir", str(tmp_path / "reports"), "--no-progress", cwd=tmp_path)
    assert r2.returncode == 0, r2.stderr
    c = _ri("compare", "inspect-arith", "inspect-lines", "--reports-dir", str(tmp_path / "reports"), "--n-boot", "200", cwd=tmp_path)
    assert c.returncode == 0 and f"{12 - no_text} samples matched by id" in c.stdout, c.stdout + c.stderr
    assert (tmp_path / "reports" / "scored" / "inspect-arith-vs-inspect-lines" / "tables" / "comparison.csv").is_file()


@pytest.mark.timeout(600)
def test_inspect_score_with_the_registered_scorer(inspect_log, server, tmp_path):
    out = tmp_path / "rescored.eval"
    env = {**os.environ, "LOCAL_BASE_URL": server, "LOCAL_API_KEY": "none"}   # inspect score sets up the log's model client
    r = subprocess.run([str(BIN / "inspect"), "score", str(inspect_log), "--scorer", "reasoning_integrity/integrity",
                        "-S", "signals=length,verified_computation", "--action", "append", "--output-file", str(out), "--display", "none"],
                       capture_output=True, text=True, timeout=600, cwd=tmp_path, env=env)
    assert r.returncode == 0 and out.is_file(), r.stdout[-2000:] + r.stderr[-3000:]
    from inspect_ai.log import read_eval_log
    log = read_eval_log(str(out))
    for s in log.samples:
        sc = s.scores["integrity"]
        assert set(sc.value) == {"length", "verified_computation"}
        assert len(sc.metadata["steps"]) == len(sc.metadata["step_signals"].get("length", sc.metadata["steps"]))


@pytest.mark.timeout(1200)
def test_lm_eval_then_ri_score(server, data, tmp_path):
    tasks = tmp_path / "tasks"; tasks.mkdir()
    (tasks / "utils.py").write_text('''
import re
def process_results(doc, results):
    "1.0 when the last number of the generation is the target (exact, no hub metric needed offline)."
    nums = re.findall(r"-?\\d+", results[0])
    return {"exact_match": float(bool(nums) and nums[-1] == doc["answer"])}
''')
    (tasks / "arith_ri.yaml").write_text(f'''task: arith_ri
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data / "arith.jsonl"}
test_split: test
output_type: generate_until
doc_to_text: "{{{{question}}}} Work it out step by step, then give the answer."
doc_to_target: "{{{{answer}}}}"
process_results: !function utils.process_results
generation_kwargs:
  until: ["Question:"]
  max_gen_toks: 48
  do_sample: false
  temperature: 0.0
metric_list:
  - metric: exact_match
    aggregation: mean
    higher_is_better: true
''')
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "OPENAI_API_KEY": "none"}
    r = subprocess.run([str(BIN / "lm_eval"), "--model", "local-chat-completions", "--model_args",
                        f"model=gemma3-270m,base_url={server}/chat/completions,num_concurrent=1,max_retries=1",
                        "--tasks", "arith_ri", "--include_path", str(tasks), "--apply_chat_template", "--log_samples",
                        "--output_path", str(tmp_path / "out"), "--limit", "12"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=1100)
    samples = sorted((tmp_path / "out").rglob("samples_arith_ri_*.jsonl"))
    assert r.returncode == 0 and samples, f"lm_eval failed ({r.returncode}):\n{r.stdout[-2000:]}\n{r.stderr[-4000:]}"
    rows = [json.loads(l) for l in samples[0].read_text().splitlines()]
    assert len(rows) == 12 and {"doc_id", "resps", "filtered_resps", "exact_match"} <= set(rows[0])
    s = _ri("score", str(samples[0]), "--name", "lm-eval-arith", "--signals", CHEAP, "--reports-dir", str(tmp_path / "reports"),
            "--no-progress", cwd=tmp_path)
    assert s.returncode == 0, s.stdout + s.stderr
    run = json.loads((tmp_path / "reports" / "scored" / "lm-eval-arith" / "run.json").read_text())
    no_text = sum(1 for x in rows if not (x["resps"][0][0] or "").strip())
    assert (run["format"], run["n_items"]) == ("lm_eval", 12 - no_text)
    import pandas as pd
    items = pd.read_csv(tmp_path / "reports" / "scored" / "lm-eval-arith" / "tables" / "items.csv", dtype={"id": str})
    em = {str(x["doc_id"]): x["exact_match"] == 1.0 for x in rows}
    assert all(bool(row.correct) == em[row.id] for row in items.itertuples())


def test_bad_logs_one_clear_error(tmp_path, inspect_log):
    reports = str(tmp_path / "reports")
    cut = tmp_path / "cut.eval"; cut.write_bytes(inspect_log.read_bytes()[: inspect_log.stat().st_size // 2])
    for path, msg in [(cut, "inspect_ai log"), (tmp_path / "nothing.xyz", "no such file")]:
        r = _ri("score", str(path), "--reports-dir", reports, "--no-progress", cwd=tmp_path)
        assert r.returncode == 2 and msg in r.stderr and "Traceback" not in r.stderr, r.stderr
    (tmp_path / "blob.bin").write_bytes(os.urandom(2000))
    r = _ri("score", str(tmp_path / "blob.bin"), "--reports-dir", reports, cwd=tmp_path)
    assert r.returncode == 2 and "unknown log format" in r.stderr and "Traceback" not in r.stderr
    (tmp_path / "silent.jsonl").write_text(json.dumps(dict(messages=[dict(role="user", content="hi")])) + "\n")
    r = _ri("score", str(tmp_path / "silent.jsonl"), "--reports-dir", reports, cwd=tmp_path)
    assert r.returncode == 2 and "no usable sample" in r.stderr and "no_chain 1" in r.stderr
    assert not (tmp_path / "reports" / "scored").exists() or not any(p for p in (tmp_path / "reports" / "scored").iterdir()
                                                                  if not p.name.startswith("."))


@pytest.mark.timeout(600)
def test_100mb_log_streamed(tmp_path):
    big = tmp_path / "big.jsonl"
    line = json.dumps(dict(id="x", question="What is 2 + 2?", chain="2 + 2 = 4.\n\n" + "So it is 4. " * 800)) + "\n"
    with open(big, "w") as f:
        for i in range(100_000_000 // len(line) + 1): f.write(line.replace('"x"', f'"s{i}"', 1))
    assert big.stat().st_size >= 100_000_000
    small = tmp_path / "small.jsonl"
    with open(big) as f, open(small, "w") as g:
        for _ in range(50): g.write(f.readline())
    code = ("import resource, sys; from reasoning_integrity.run.cli import main; rc = main(sys.argv[1:]); "
            "print('MAXRSS', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss); sys.exit(rc)")
    rss = {}
    for p in (small, big):
        r = subprocess.run([sys.executable, "-c", code, "score", str(p), "--limit", "20", "--signals", "length,verified_computation",
                            "--reports-dir", str(tmp_path / "reports"), "--no-progress"], capture_output=True, text=True,
                           timeout=600, cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        rss[p.stem] = int(r.stdout.split("MAXRSS")[-1].split()[0]) / 1024
    run = json.loads((tmp_path / "reports" / "scored" / "big" / "run.json").read_text())
    assert run["n_items"] == 20 and run["limit"] == 20
    # reading stops at the limit: the 100 MB file costs no more memory than a 0.5 MB one (within 30 MB)
    assert rss["big"] - rss["small"] < 30, rss
