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


def test_ri_score_reads_no_notebook_and_imports_no_nbformat(tmp_path):
    "nbformat's import builds jsonschema's format checkers (about 2 s): only commands that read a notebook pay for it."
    (tmp_path / "ok.jsonl").write_text('{"id": "q0", "chain": "1 + 1 = 2\\n\\nso 2"}\n')
    code = ("import sys\nfrom reasoning_integrity.run.cli import main\n"
            f"print('EXIT', main(['score', 'ok.jsonl', '--signals', 'length', '--reports-dir', {str(tmp_path / 'reports')!r}, '--no-progress']))\n"
            "print('NBFORMAT', 'nbformat' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "EXIT 0" in r.stdout, (r.stdout + r.stderr)[-2000:]
    assert (tmp_path / "reports" / "scored" / "ok" / "tables").is_dir()
    assert "NBFORMAT False" in r.stdout
