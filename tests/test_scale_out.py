"""Scale-out on a local Ray instance (started and stopped here): both Ray engines (persistent actors, `ray`; a Ray
Data `map_batches` pipeline per call, `ray-data`) give the local executor's outputs bit for bit, a worker killed
mid-run is restarted and its batch retried by Ray, and experiments write byte-identical tables and records under
`executor=ray` and `executor=local`, each from a cold cache of its own (trajectory_scenarios, alignment_logged with
an actor killed mid-run, rep_protocol on the scripted noisy oracle)."""
import filecmp
import os
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray")
from reasoning_integrity.core.executor import KILL_ONCE_ENV, LocalExecutor, RayExecutor, map_items

ROOT = Path(__file__).resolve().parents[1]
pytestmark = [pytest.mark.integration, pytest.mark.timeout(900)]   # local Ray clusters and whole experiments under them: make test-integration


@pytest.fixture(scope="module", params=["actors", "data"])
def rx(request):
    if ray.is_initialized(): ray.shutdown()
    ex = RayExecutor(num_workers=2, num_cpus=2, engine=request.param)
    yield ex
    ray.shutdown()


@pytest.fixture(scope="module")
def tiny_nli(tmp_path_factory):
    from reasoning_integrity.models.nli import make_tiny_nli_model
    return make_tiny_nli_model(tmp_path_factory.mktemp("nli") / "tiny", seed=0)


def _pairs(n=150):
    rng = np.random.default_rng(0)
    words = "the a cat dog sat ran on under mat river quickly slowly not never always big small".split()
    sent = lambda: " ".join(rng.choice(words, size=int(rng.integers(2, 25))))
    return [sent() for _ in range(n)], [sent() for _ in range(n)]


def test_shared_executor_follows_the_ray_session():
    from reasoning_integrity.core.executor import get_executor
    if ray.is_initialized(): ray.shutdown()
    ex = get_executor("ray")
    assert get_executor("ray") is ex                      # one executor (one set of actors) per process
    ray.shutdown(); ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    again = get_executor("ray")                           # its actors died with the old session: a new one
    assert again is not ex and map_items(abs, [-1, 2], again) == [1, 2]
    ray.shutdown()


def test_map_items_in_order(rx):
    assert map_items(pow, list(range(25)), rx, batch_size=4, exp=3) == [x ** 3 for x in range(25)]


def test_nli_and_embeddings_bit_identical(rx, tiny_nli, tmp_path):
    from reasoning_integrity.models.embed import Embedder
    from reasoning_integrity.models.nli import NLIModel
    P, H = _pairs()
    local = NLIModel(tiny_nli, batch_size=16, cache=False).predict(P, H)
    far = NLIModel(tiny_nli, batch_size=16, cache_path=tmp_path / "nli.sqlite", executor=rx)
    np.testing.assert_array_equal(far.predict(P, H), local)
    assert far.n_forward == -(-len(set(zip(P, H))) // 16)          # one worker call per forward batch
    # the driver wrote every result to the cache as it arrived: a local scorer on that file computes nothing
    again = NLIModel(tiny_nli, cache_path=tmp_path / "nli.sqlite")
    np.testing.assert_array_equal(again.predict(P, H), local)
    assert again.n_scored == 0
    np.testing.assert_array_equal(Embedder(cache=False, batch_size=8, executor=rx)(P), Embedder(cache=False, batch_size=8)(P))


def test_killed_worker_is_retried(rx, tiny_nli, tmp_path, monkeypatch):
    from reasoning_integrity.models.nli import NLIModel
    P, H = _pairs(90)
    marker = tmp_path / "killed"
    monkeypatch.setenv(KILL_ONCE_ENV, str(marker))
    got = NLIModel(tiny_nli, batch_size=8, cache=False, executor=rx).predict(P, H)
    assert marker.exists()                                            # an actor did die mid-run
    np.testing.assert_array_equal(got, NLIModel(tiny_nli, batch_size=8, cache=False).predict(P, H))


CASES = {  # experiment -> its parameters for both runs (small: --limit, a random-weight NLI model, a scripted LLM)
    "trajectory_scenarios": {},
    "alignment_logged": {"max_per_depth": 4, "perturb_n": 3, "compare_n": 4, "n_boot": 200, "nli_model": "TINY"},
    # the live run on the scripted noisy oracle (the `noisy-oracle` backend spec draws the notebook's own problems)
    "rep_protocol": {"llm": "noisy-oracle:n=4,seed=0", "n_problems": 4, "seed": 0, "oracle_n": 6, "n_boot": 200},
}


RUNS = [(name, "ray") for name in CASES] + [("trajectory_scenarios", "ray-data")]


@pytest.mark.parametrize("name,remote", RUNS)
def test_tables_identical_under_ray(name, remote, tiny_nli, tmp_path, monkeypatch):
    if ray.is_initialized(): ray.shutdown()          # the kernels start Ray themselves
    from reasoning_integrity.run.runner import reproduce
    if not os.environ.get("RI_DATA_DIR") and not (ROOT.parent / "shared" / "data").is_dir():
        pytest.skip("no data (set RI_DATA_DIR)")
    params = {k: (str(tiny_nli) if v == "TINY" else v) for k, v in CASES[name].items()}
    outs = {}
    for ex in ("local", remote):
        monkeypatch.setenv("RI_CACHE_DIR", str(tmp_path / f"cache-{ex}"))   # each run from a cold cache of its own
        if ex != "local" and name == "alignment_logged":
            monkeypatch.setenv(KILL_ONCE_ENV, str(tmp_path / "killed"))     # and one actor dies mid-run
        res = reproduce([name], params={**params, "executor": ex}, reports_dir=tmp_path / ex, root=ROOT, progress=False)
        assert list(res.status) == ["ok"], res.error.tolist()
        outs["local" if ex == "local" else "ray"] = tmp_path / ex / name
    if name == "alignment_logged": assert (tmp_path / "killed").exists()
    files = sorted(p.relative_to(outs["local"]) for p in outs["local"].rglob("*") if p.suffix in (".csv", ".jsonl"))
    assert len(files) >= 3
    differ = [str(f) for f in files if not filecmp.cmp(outs["local"] / f, outs["ray"] / f, shallow=False)]
    assert not differ, differ
