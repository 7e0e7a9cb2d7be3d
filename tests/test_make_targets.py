"""The Makefile's promises that can be checked without timing them (issue 41): the llama.cpp build is the portable one
the library checks for, `make test` leaves the integration tests to `make test-integration` and CI runs both, and the
experiments `make reproduce REPRODUCE_OVERLAP=1` runs beside the NLI build are the ones that use no NLI model."""
import json, platform, re, subprocess
from pathlib import Path

import pytest

from reasoning_integrity.models.llamacpp import PORTABLE_CMAKE_ARGS, llama_build_problem, llama_features

ROOT = Path(__file__).resolve().parents[1]


def make_var(name: str) -> str:
    return subprocess.run(["make", "-s", "--no-print-directory", f"print-{name}"], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout.strip()


@pytest.mark.skipif(platform.machine() != "x86_64", reason="the fixed instruction set is x86-64's")
def test_llama_flags_are_the_portable_set():
    flags = make_var("LLAMA_CMAKE_ARGS").split()
    assert set(PORTABLE_CMAKE_ARGS.split()) <= set(flags), "the Makefile and models.llamacpp disagree on the build"
    assert "-DGGML_NATIVE=OFF" in flags and not any("march=native" in f for f in flags)
    assert "-DLLAVA_BUILD=OFF" in flags                        # no mtmd/llava library
    only = (ROOT / "setup/llama_cpp_lib_only.cmake").read_text()
    assert re.search(r"set\(LLAMA_BUILD_COMMON OFF CACHE BOOL .* FORCE\)", only)   # no libllama-common


def test_wheel_is_kept_by_its_flags():
    "The wheel's folder name changes with the flags, so a wheel built with others is never picked up."
    base = make_var("LLAMA_WHEELS")
    other = subprocess.run(["make", "-s", "--no-print-directory", "print-LLAMA_WHEELS", "LLAMA_CMAKE_ARGS=-DGGML_NATIVE=ON"],
                           cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    assert base != other and base.rsplit("-", 1)[0] == other.rsplit("-", 1)[0]
    assert make_var("STAMP").endswith(base.rsplit("-", 1)[1])   # and so does the venv's install stamp


def test_installed_llama_is_the_portable_build():
    """What the installed llama_cpp says it was compiled with: AVX2/FMA/F16C, nothing of AVX-512, AVX-VNNI or AMX.
    (A .venv installed before the portable build fails here until `make install` reinstalls llama.cpp.)"""
    f = llama_features()
    assert llama_build_problem() is None, f
    if platform.machine() == "x86_64":
        assert not [k for k, v in f.items() if v == "1" and k.startswith(("AVX512", "AVX_VNNI", "AMX"))]


def test_no_nli_experiments_match_their_manifests():
    listed = set(make_var("NO_NLI_EXPERIMENTS").split())
    every = set(make_var("ALL_EXPERIMENTS").split())
    assert listed < every
    no_nli = {n for n in every if "nli" not in json.loads((ROOT / "reports" / n / "manifest.json").read_text()).get("models", {})}
    assert listed == no_nli
    for n in listed:   # nor does the notebook ask for one
        src = (ROOT / "nbs/experiments" / f"{n}.ipynb").read_text()
        assert not re.search(r"NLIModel\(|get_nli\(", src), n


def test_test_targets():
    "`make test` runs pytest without the integration tests, `make test-integration` runs only them, CI runs both."
    dry = lambda t: subprocess.run(["make", "-n", "--no-print-directory", t], cwd=ROOT, capture_output=True, text=True).stdout
    assert re.search(r"pytest .*-m ['\"]not integration and not slow['\"]", dry("test-py"))
    assert re.search(r"pytest .*-m ['\"]integration or slow['\"]", dry("test-integration"))
    ci = [l.strip() for l in (ROOT / ".ci/run").read_text().splitlines() if l.strip().startswith("make ")]
    assert ci.index("make test") < ci.index("make test-integration")
    cfg = (ROOT / "pyproject.toml").read_text()
    assert re.search(r"markers = \[[^\]]*\"integration:[^\]]*\"slow:", cfg) and "--strict-markers" in cfg


def test_make_exports_the_numeric_path():
    "Every process make starts (nbdev_test's workers, pytest, ri) computes on the project's numeric path from its first op."
    from reasoning_integrity.models.numeric import NUMERIC_ENV
    env = {k: v for k, v in __import__("os").environ.items() if k not in NUMERIC_ENV}
    out = subprocess.run(["make", "-s", "--no-print-directory", "print-env-numeric"], cwd=ROOT, env=env,
                         capture_output=True, text=True, check=True).stdout
    got = dict(l.split("=", 1) for l in out.splitlines() if "=" in l)
    assert got == NUMERIC_ENV, got
