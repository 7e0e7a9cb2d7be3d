"""README's commands, run as they are written (issue 40): the OpenAI-compatible server of the embedded model and
`inspect score` with the project's scorer.

- The server block (marked `<!-- server-recipe: ... -->` in README) is started through bash on a free port; through the
  `openai` client, a system message reaches the model: a request with one costs more prompt tokens than the same
  request without it, exactly as many as with its text written at the head of the user turn, and as many as the
  embedded backend counts with `chat_format="gemma-keep-system"`. Its options are those `models.llamacpp.server_args`
  gives the integration tests' server (`tests/llama_server.py`).
- The `inspect score` block (marked `<!-- inspect-score-recipe: ... -->`) runs without a terminal (stdin closed) and
  without the log's provider variables in the environment, twice (the second time its output file exists).
"""
import hashlib, os, re, shlex, subprocess, sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration   # README's server recipe, live: make test-integration

from reasoning_integrity.models.openai_backend import free_port, wait_http

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def readme_block(marker: str) -> str:
    "The command of the fenced block right after README's `<!-- marker: ... -->` line, its continuation lines joined."
    lines = (ROOT / "README.md").read_text().splitlines()
    at = next((i for i, l in enumerate(lines) if l.startswith(f"<!-- {marker}:")), None)
    assert at is not None, f"README.md has no <!-- {marker}: ... --> line"
    assert lines[at + 1].startswith("```"), f"the line after README's {marker} marker opens no fenced block"
    body = lines[at + 2: next(j for j in range(at + 2, len(lines)) if lines[j].startswith("```"))]
    return re.sub(r"\s*\\\n\s*", " ", "\n".join(body)).strip()


def _local(cmd: str) -> str:
    "README's `.venv/bin/` is this test's virtual environment."
    return cmd.replace(".venv/bin/", f"{BIN}/")


def test_the_blocks_are_there():
    server = readme_block("server-recipe")
    assert server.startswith(".venv/bin/python -m llama_cpp.server ") and "--port 8765" in server
    assert "$(.venv/bin/ri models path gemma)" in server and "--chat_format gemma " not in server
    score = readme_block("inspect-score-recipe")
    assert "/inspect score " in score and "<log>.eval" in score
    for flag in ("--action append", "--output-file", "--overwrite"):   # what makes it run without a terminal
        assert flag in score, flag


def test_readme_server_options_are_the_tests_server_options(tmp_path):
    "README's command, its `$(...)` expanded by bash, holds every option `server_args` gives `tests/llama_server.py`."
    from reasoning_integrity.models.llamacpp import server_args
    cmd = _local(readme_block("server-recipe"))
    head = f"{BIN}/python -m llama_cpp.server "
    assert cmd.startswith(head)
    out = subprocess.run(["bash", "-c", "printf '%s\\0' " + cmd[len(head):]], cwd=tmp_path, capture_output=True,
                         timeout=120, check=True).stdout.decode()
    argv = out.split("\0")[:-1]
    opts = dict(zip(argv[::2], argv[1::2]))
    want = server_args("gemma")
    assert {k: opts.get(k) for k in want[::2]} == dict(zip(want[::2], want[1::2]))
    assert (opts["--host"], opts["--port"]) == ("127.0.0.1", "8765")


@pytest.mark.timeout(300)
def test_readme_server_recipe_keeps_system_messages(tmp_path):
    import openai
    port = free_port()
    cmd = _local(readme_block("server-recipe")).replace("--port 8765", f"--port {port}")
    log = tmp_path / "server.log"
    proc = subprocess.Popen(["bash", "-c", "exec " + cmd], cwd=tmp_path, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=log.open("wb"))
    url = f"http://127.0.0.1:{port}/v1"
    try:
        try: wait_http(f"{url}/models", timeout=120, proc=proc)
        except (RuntimeError, TimeoutError) as e: pytest.fail(f"README's server did not start: {e}\n{log.read_text()[-3000:]}")
        client = openai.OpenAI(base_url=url, api_key="none", max_retries=0, timeout=120)
        assert "gemma3-270m" in [m.id for m in client.models.list().data]
        system, user = "Answer in French, in one word.", "Name a colour."
        convs = {"with": [{"role": "system", "content": system}, {"role": "user", "content": user}],
                 "without": [{"role": "user", "content": user}],
                 "folded": [{"role": "user", "content": f"{system}\n\n{user}"}]}
        n = {k: client.chat.completions.create(model="gemma3-270m", messages=m, max_tokens=1, temperature=0.0).usage.prompt_tokens
             for k, m in convs.items()}
    finally:
        proc.terminate()
        try: proc.wait(15)
        except subprocess.TimeoutExpired: proc.kill(); proc.wait()
    assert n["with"] > n["without"], n            # the system message reached the model
    assert n["with"] == n["folded"], n            # as its text at the head of the first user turn
    from reasoning_integrity.models.llm import get_llm   # the embedded backend's template counts the same tokens
    kept = get_llm(cache=False, chat_format="gemma-keep-system")
    assert kept(convs["with"], max_tokens=1).usage["prompt_tokens"] == n["with"]


def _local_eval_log(path: Path) -> Path:
    "An inspect log of three samples whose model is `openai-api/local/gemma3-270m`, as the README's runs write."
    from test_hostile_logs import _eval_log
    from inspect_ai.log import read_eval_log, write_eval_log
    _eval_log(path, ["2 + 3 = 5\n\nso 5", "3 + 3 = 7\n\nso 7", "it is four"])
    log = read_eval_log(str(path))
    log.eval.model = "openai-api/local/gemma3-270m"
    write_eval_log(log, str(path))
    return path


@pytest.mark.timeout(300)
def test_readme_inspect_score_runs_without_a_terminal(tmp_path):
    from inspect_ai.log import read_eval_log
    plain = tmp_path / "logs" / "plain"; plain.mkdir(parents=True)
    log = _local_eval_log(plain / "run.eval")
    before = hashlib.sha256(log.read_bytes()).hexdigest()
    cmd = _local(readme_block("inspect-score-recipe")).replace("<log>.eval", log.name)
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOCAL_") and k != "OPENAI_API_KEY"}
    for attempt in (1, 2):   # the second time the output file exists: --overwrite, not a question
        r = subprocess.run(["bash", "-c", cmd], cwd=tmp_path, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=240, env={**env, "TOKENIZERS_PARALLELISM": "false"})
        assert r.returncode == 0, f"attempt {attempt}:\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}"
    argv = shlex.split(cmd)
    out = tmp_path / argv[argv.index("--output-file") + 1]
    scored = read_eval_log(str(out))
    assert all(set(s.scores["integrity"].value) == {"length", "verified_computation"} for s in scored.samples)
    assert scored.eval.model == "openai-api/local/gemma3-270m"
    assert hashlib.sha256(log.read_bytes()).hexdigest() == before     # the log itself is left as it was
