"""`python -m llama_cpp.server` serving the embedded Gemma 3 270M on 127.0.0.1 for the integration tests (one helper, two test files),
with README's settings (`models.llamacpp.server_args`: the GGUF, the chat template that keeps system messages, the alias)."""
import contextlib, subprocess, sys

import pytest

from reasoning_integrity.models.llamacpp import server_args
from reasoning_integrity.models.openai_backend import free_port, wait_http


@contextlib.contextmanager
def llama_server(log_dir, *args, headers=None):
    "Yield the server's base URL (`http://127.0.0.1:<port>/v1`); `args` are extra server options. Stopped on exit."
    port, log = free_port(), log_dir / "server.log"
    proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", *server_args("gemma3-270m"), "--host", "127.0.0.1",
                             "--port", str(port), *args], stdout=subprocess.DEVNULL, stderr=log.open("wb"))
    try:
        try: wait_http(f"http://127.0.0.1:{port}/v1/models", timeout=120, proc=proc, headers=headers)
        except (RuntimeError, TimeoutError) as e: pytest.fail(f"llama_cpp.server did not start: {e}\n{log.read_text()[-3000:]}")
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        try: proc.wait(15)
        except subprocess.TimeoutExpired: proc.kill(); proc.wait()
