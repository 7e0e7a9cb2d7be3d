__version__ = "0.1.0"
# The project's numeric path (models.numeric.NUMERIC_ENV: AVX2 kernels for torch, numpy and OpenBLAS, fixed threads),
# each variable set here unless the environment sets it: numpy and OpenBLAS pick their kernels when first imported, so
# this is the last moment to fix them in a process that imports this package first (on an AVX-512 CPU numpy would
# otherwise run its AVX-512 loops). `models.numeric.check_numeric_path` says when a process is off the path.
from .models.numeric import use_numeric_path as _use_numeric_path
_use_numeric_path()
# The top-level API, imported on first use so that `import reasoning_integrity` stays light:
#   import reasoning_integrity as ri
#   ri.score_chain(["2+3=5", "5*4=20", "so the answer is 20"], question="What is (2+3)*4?")
#   ri.compare_chains(a, b); ri.llm("openai:gpt-4o-mini")
#   a = ri.score_log("logs/run-a.eval"); b = ri.score_log("logs/run-b.eval"); ri.compare_runs(a, b)
#   ri.validate("my_signal,length", labels="my_labels.jsonl", first_error="first_error")   # -> reports/validated/my_labels
_API = {"score_chain": "run.api", "compare_chains": "run.api", "ChainScore": "run.api", "ChainComparison": "run.api",
        "score_log": "logs.score", "compare_runs": "logs.score", "ScoredRun": "logs.score", "RunComparison": "logs.score",
        "read_log": "logs.readers", "segment": "logs.segment",
        "validate": "logs.validate", "ValidatedRun": "logs.validate", "read_labels": "logs.labels"}


def __getattr__(name):
    if name in _API:
        from importlib import import_module
        return getattr(import_module(f".{_API[name]}", __name__), name)
    if name == "llm":  # short name for the model specs: ri.llm("llamacpp:gemma3-270m"), ri.llm("openai:gpt-4o-mini")
        from .models.llm import get_llm
        return get_llm
    raise AttributeError(f"module 'reasoning_integrity' has no attribute {name!r}")


def __dir__(): return sorted([*globals(), *_API, "llm"])
