"""The top-level API (issue 16): three lines from import to a table, from any working directory."""
import os, subprocess, sys


def test_score_chain_from_a_fresh_process(tmp_path):
    code = ("import reasoning_integrity as ri; "
            "print(ri.score_chain(['2+3=5', '5*4=20', 'so the answer is 20'], question='What is (2+3)*4?'))")
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                       env={**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})
    assert r.returncode == 0, r.stderr[-2000:]
    out = r.stdout
    assert "so the answer is 20" in out and "position" in out and "embedding_drift" in out and "signal" in out


def test_import_is_light_and_names_resolve():
    r = subprocess.run([sys.executable, "-c", "import sys, reasoning_integrity as ri; "
                        "print('torch' in sys.modules, 'pandas' in sys.modules); "
                        "print(callable(ri.score_chain), callable(ri.compare_chains), ri.llm.__name__)"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    first, second = r.stdout.splitlines()
    assert first == "False False"            # nothing heavy until a name is used
    assert second == "True True get_llm"
