"""System messages and the embedded Gemma (issue 40): llama-cpp-python's `gemma` chat format drops them, so the
embedded backend (whose default format stays `gemma`: the committed reports were made with it) warns, once per
backend, with `SystemMessageDropped`, and counts every such request, cached or not, in the process totals a report
records; `chat_format="gemma-keep-system"` keeps them. No committed experiment sends one: `rep_protocol`'s chat style,
the only code that builds a system message for an LLM, is not what it uses for `llamacpp:`.
"""
import warnings

import pytest

from reasoning_integrity.models.llamacpp import LlamaCppBackend, SystemMessageDropped
from reasoning_integrity.models.llm import LLM, Request, call_totals

SYSTEM = {"role": "system", "content": "Answer in French, in one word."}
USER = {"role": "user", "content": "Name a colour."}


def _dropped(w):
    return [x for x in w if issubclass(x.category, SystemMessageDropped)]


def test_review_counts_and_warns_once_per_backend():
    b = LlamaCppBackend()          # nothing is loaded: review only reads the requests
    assert b.chat_format == "gemma"
    batch = [Request(messages=[SYSTEM, USER]), Request(messages=[USER]), Request(prompt="2 + 2 ="),
             Request(messages=[{"role": "system", "content": ""}, USER])]     # an empty system message loses nothing
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert b.review(batch) == {"system_dropped": 1}
        assert b.review(batch * 3) == {"system_dropped": 3}                 # counted again, not warned again
        assert b.review(batch[1:]) == {}
    (only,) = _dropped(w)
    msg = str(only.message)
    assert "1 of 4 requests" in msg and "'gemma' chat format" in msg and "chat_format='gemma-keep-system'" in msg
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert LlamaCppBackend().review(batch) == {"system_dropped": 1}     # a new backend says it again
        assert LlamaCppBackend(chat_format="gemma-keep-system").review(batch) == {}
    assert len(_dropped(w)) == 1


def test_no_committed_experiment_sends_a_system_message():
    from reasoning_integrity.lines.trajectory.protocol import RepConfig, stage_request, style_for
    from reasoning_integrity.lines.trajectory.tasks import rep_problems
    task, b = rep_problems(1)[0], LlamaCppBackend()
    style = style_for("llamacpp:gemma3-270m")
    assert style == "completion"
    assert b.review([stage_request("baseline", task, RepConfig(style=style))]) == {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SystemMessageDropped)
        assert b.review([stage_request("baseline", task, RepConfig(style="chat"))]) == {"system_dropped": 1}


@pytest.mark.timeout(300)
def test_embedded_backend_drops_then_keeps(tmp_path):
    from reasoning_integrity.models.cache import Cache
    with_sys, without = Request(messages=[SYSTEM, USER], max_tokens=2), Request(messages=[USER], max_tokens=2)
    folded = Request(messages=[{"role": "user", "content": f"{SYSTEM['content']}\n\n{USER['content']}"}], max_tokens=2)
    before = {d["label"]: d for d in call_totals()}.get("llamacpp:gemma3-270m", {}).get("system_dropped", 0)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        llm = LLM(LlamaCppBackend(), Cache(tmp_path / "c.sqlite"), preflight=None)
        a, b = llm.generate([with_sys, without], progress=False)
        again = LLM(LlamaCppBackend(), Cache(tmp_path / "c.sqlite"), preflight=None).generate([with_sys], progress=False)
    assert again[0].cached and len(_dropped(w)) == 2          # each backend warns, the cached run too
    assert a.usage["prompt_tokens"] == b.usage["prompt_tokens"]  # the model saw no system message
    after = {d["label"]: d for d in call_totals()}["llamacpp:gemma3-270m"]["system_dropped"]
    assert after - before == 2
    kept = LLM(LlamaCppBackend(chat_format="gemma-keep-system"), None, preflight=None)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        c, d = kept.generate([with_sys, folded], progress=False)
    assert not _dropped(w)
    assert c.usage["prompt_tokens"] == d.usage["prompt_tokens"] > b.usage["prompt_tokens"]
