"""The on-disk caches touch only files that are this project's caches (issue 26, points 4 and 8).

Point 4: `ri cache clear --path F` must never delete or empty a file that is not one of this project's caches (a text
file, zeros, random bytes, another program's database, even one with a `responses` table of our columns), and
`ri cache info --path F` must never write (no table, no index, no WAL switch, no -wal file, not a byte changed).
Point 8: a damaged page inside a response, embedding or NLI cache is one `CacheCorrupt` naming the file and the fix,
never a bare `sqlite3.DatabaseError`, and `ri cache info` exits non-zero on it (it reads every page first).

Everything runs in-process through `reasoning_integrity.run.cli.main`, on files made in `tmp_path`.
"""
import hashlib, io, json, random, sqlite3, warnings
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pytest

from reasoning_integrity.run.cli import main as ri
from reasoning_integrity.models.cache import ArrayStore, Cache, CacheCorrupt, CacheError
from reasoning_integrity.models.llm import LLM, Backend, Request, Result

# the schema the project's response cache has always had (written here by hand, as the code before the mark did)
SCHEMA = ("CREATE TABLE responses (key TEXT PRIMARY KEY, backend TEXT NOT NULL, created REAL NOT NULL, "
          "request TEXT NOT NULL, result TEXT NOT NULL)")
INDEX = "CREATE INDEX responses_backend ON responses(backend)"


def run_cli(*argv):
    "`ri ARGV` in-process: (exit status, stdout, stderr)."
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rc = ri([str(a) for a in argv])
    return rc, out.getvalue(), err.getvalue()


def snapshot(folder):
    "Every file in `folder` with the sha256 of its bytes."
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(Path(folder).iterdir()) if p.is_file()}


def sqlite_file(path, *sql, rows=()):
    "An SQLite file made by running `sql`, then inserting `rows` into `responses` (another program's, or a legacy cache)."
    db = sqlite3.connect(path)
    for s in sql: db.execute(s)
    if rows: db.executemany("INSERT INTO responses VALUES (?,?,?,?,?)", rows)
    db.commit(); db.close()
    return path


ROWS = [(f"k{i}", "theirs:model", 0.0, "{}", json.dumps({"text": f"their answer {i}"})) for i in range(20)]


class Echo(Backend):
    "Answers 'echo:<prompt>'."
    kind = "echo"
    @property
    def identity(self): return {"kind": self.kind, "model": "e"}
    async def acomplete(self, req): return Result(f"echo:{req.prompt}", "stop")


def reqs(n): return [Request(prompt=f"q{i}") for i in range(n)]


def spoil_pages(path, pages, seed=0):
    "Overwrite the given page numbers (1-based) of an SQLite file with random bytes."
    size = int.from_bytes(Path(path).read_bytes()[16:18], "big")
    rng = random.Random(seed)
    with open(path, "r+b") as f:
        for p in pages: f.seek((p - 1) * size); f.write(rng.randbytes(size))


def middle_pages(path, k=3):
    "`k` page numbers around the middle of an SQLite file (past page 1, which holds the header and the schema)."
    n = Path(path).stat().st_size // int.from_bytes(Path(path).read_bytes()[16:18], "big")
    return [max(2, n // 2 + i - k // 2) for i in range(k)]


def pages_of(path, name):
    "The page numbers of one table or index (SQLite's `dbstat`); skips the test where this SQLite lacks it."
    db = sqlite3.connect(path)
    try: return [p for (p,) in db.execute("SELECT pageno FROM dbstat WHERE name = ?", (name,))]
    except sqlite3.OperationalError: pytest.skip("this SQLite has no dbstat table")
    finally: db.close()


# ---------------------------------------------------------------------------------------------------------------
# Point 4: files that are not ours are never deleted, emptied or written

NOT_SQLITE = {
    "text": lambda p: p.write_text("\n".join(json.dumps({"prompt": f"q{i}", "text": "a"}) for i in range(100))),
    "zeros": lambda p: p.write_bytes(b"\0" * 8192),
    "random": lambda p: p.write_bytes(random.Random(0).randbytes(64 * 1024)),
    "sqlite_magic_then_garbage": lambda p: p.write_bytes(b"SQLite format 3\x00" + random.Random(1).randbytes(8192)),
}

FOREIGN = {   # another program's database: a `responses` table, never this project's cache
    "same_column_names_untyped": lambda p: sqlite_file(p, "CREATE TABLE responses (key, backend, created, request, result)", rows=ROWS),
    "our_exact_table_and_another": lambda p: sqlite_file(p, SCHEMA, INDEX, "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)", rows=ROWS),
    "our_exact_table_another_app_id": lambda p: sqlite_file(p, SCHEMA, INDEX, "PRAGMA application_id = 1196444487", rows=ROWS),
    "our_exact_table_and_a_view": lambda p: sqlite_file(p, SCHEMA, "CREATE VIEW answers AS SELECT result FROM responses", rows=ROWS),
    "other_columns": lambda p: sqlite_file(p, "CREATE TABLE responses (key TEXT, value BLOB)"),
}


@pytest.mark.parametrize("kind", sorted(NOT_SQLITE) + sorted(FOREIGN))
def test_clear_never_deletes_a_file_that_is_not_ours(tmp_path, kind):
    path = tmp_path / "data.db"
    {**NOT_SQLITE, **FOREIGN}[kind](path)
    before = snapshot(tmp_path)
    rc, out, err = run_cli("cache", "clear", "--path", path)
    assert rc != 0 and str(path) in err and "nothing was changed" in err and "Traceback" not in err, (rc, out, err)
    assert snapshot(tmp_path) == before                      # not deleted, not emptied, no -wal/-shm beside it
    rc, out, err = run_cli("cache", "clear", "--backend", "theirs", "--path", path)
    assert rc != 0 and snapshot(tmp_path) == before, (rc, err)
    # the message that refuses it must not suggest the command that deletes files
    rc, out, err = run_cli("cache", "info", "--path", path)
    assert rc != 0 and str(path) in err and "ri cache clear" not in err, err
    with pytest.raises(CacheError) as e: Cache(path)          # a run refuses it too, and writes nothing into it
    assert "nothing was changed" in str(e.value) and "ri cache clear" not in str(e.value)
    with pytest.raises(CacheError): ArrayStore(path, "emb")
    assert snapshot(tmp_path) == before
    if kind in FOREIGN and kind != "other_columns":
        assert sqlite3.connect(path).execute("SELECT COUNT(*) FROM responses").fetchone()[0] == len(ROWS)


@pytest.mark.parametrize("kind", ["foreign", "ours_closed", "legacy", "embedding", "missing", "empty_file"])
def test_info_never_writes(tmp_path, kind):
    "`ri cache info` leaves every byte as it was, creates no -wal/-shm and no file, on any file it is pointed at."
    path = tmp_path / "c.sqlite"
    if kind == "foreign": FOREIGN["our_exact_table_and_another"](path)
    elif kind == "ours_closed":
        c = Cache(path); LLM(Echo(), c).generate(reqs(30), progress=False); c.close()
    elif kind == "legacy": sqlite_file(path, "PRAGMA journal_mode=WAL", SCHEMA, INDEX, rows=ROWS)
    elif kind == "embedding":
        s = ArrayStore(path, "emb"); s.put({f"t{i}": np.ones(8, np.float32) for i in range(5)}); s.close()
    elif kind == "empty_file": path.touch()
    before = snapshot(tmp_path)
    rc, out, err = run_cli("cache", "info", "--path", path)
    assert snapshot(tmp_path) == before, (rc, out, err)
    if kind == "foreign":
        assert rc == 1 and "another program" in err and "nothing was changed" in err, (rc, err)
        assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0] == "delete"   # no WAL switch
        assert sqlite3.connect(path).execute("SELECT name FROM sqlite_master WHERE type='index' AND name='responses_backend'").fetchall() == [("responses_backend",)]
    elif kind == "missing": assert rc == 0 and f"no cache file at {path}" in err and not path.exists(), (rc, err)
    elif kind == "embedding": assert rc == 0 and "table emb (arrays)" in out and " 5 " in out, out
    elif kind == "empty_file": assert rc == 0 and path.stat().st_size == 0
    else: assert rc == 0 and ("echo:e" if kind == "ours_closed" else "theirs:model") in out, (rc, out, err)


def test_legacy_cache_is_still_ours(tmp_path):
    "A response cache written before the application id (exact schema, no mark) is read, reused, marked and cleared."
    path = tmp_path / "responses.sqlite"
    c = Cache(path); LLM(Echo(), c).generate(reqs(10), progress=False); c.close()
    db = sqlite3.connect(path); db.execute("PRAGMA application_id = 0"); db.commit(); db.close()   # as the old code left it
    rc, out, err = run_cli("cache", "info", "--path", path)
    assert rc == 0 and "echo:e" in out and " 10 " in out, (rc, out, err)
    llm = LLM(Echo(), Cache(path))
    llm.generate(reqs(12), progress=False)
    assert llm.last_summary.cached == 10                     # the user's cache is not stranded
    assert sqlite3.connect(path).execute("PRAGMA application_id").fetchone()[0] != 0   # marked by its first write
    llm.cache.close()
    rc, out, err = run_cli("cache", "clear", "--path", path)
    assert rc == 0 and "deleted 12 cached responses" in out, (rc, out, err)


def test_clear_deletes_only_the_damaged_cache_it_names(tmp_path):
    "The fix a damaged cache's message gives is safe: following it deletes that file (and its -wal/-shm), nothing else."
    path = tmp_path / "responses.sqlite"
    c = Cache(path); LLM(Echo(), c).generate(reqs(2000), progress=False); c.close()
    FOREIGN["our_exact_table_and_another"](tmp_path / "theirs.sqlite")
    (tmp_path / "notes.txt").write_text("keep me")
    spoil_pages(path, middle_pages(path))
    others = {k: v for k, v in snapshot(tmp_path).items() if k != path.name}
    rc, out, err = run_cli("cache", "info", "--path", path)
    assert rc == 1 and f"ri cache clear --path {path}" in err, (rc, err)
    rc, out, err = run_cli("cache", "clear", "--path", path)
    assert rc == 0 and "deleted it and started an empty cache" in err, (rc, out, err)
    assert {k: v for k, v in snapshot(tmp_path).items() if k != path.name} == others
    assert run_cli("cache", "info", "--path", path)[:2] == (0, f"(none)\ncache file: {path} (0.0 MB on disk)\n")


# ---------------------------------------------------------------------------------------------------------------
# Point 8: damaged pages are named with the file and the fix

@pytest.mark.parametrize("where", ["table_pages", "key_index_pages"])
def test_damaged_pages_in_the_response_cache(tmp_path, where):
    path = tmp_path / "responses.sqlite"
    c = Cache(path); LLM(Echo(), c).generate(reqs(2000), progress=False); c.close()
    pages = middle_pages(path) if where == "table_pages" else pages_of(path, "sqlite_autoindex_responses_1")[1:4]
    spoil_pages(path, pages)
    llm = LLM(Echo(), Cache(path))
    with pytest.raises(CacheCorrupt) as e: llm.generate(reqs(2000), progress=False)
    assert str(path) in str(e.value) and f"ri cache clear --path {path}" in str(e.value), str(e.value)
    llm.cache.close()
    rc, out, err = run_cli("cache", "info", "--path", path)   # never "ok" on a file a run cannot use
    assert rc == 1 and str(path) in err and "damaged" in err and f"ri cache clear --path {path}" in err, (rc, out, err)
    assert "Traceback" not in out + err
    rc, out, err = run_cli("cache", "clear", "--backend", "echo", "--path", path)
    assert rc == 2 and "nothing deleted" in err, (rc, err)
    rc, out, err = run_cli("cache", "clear", "--path", path)
    assert rc == 0 and "deleted it and started an empty cache" in err, (rc, err)
    again = LLM(Echo(), Cache(path))
    assert all(r.ok for r in again.generate(reqs(5), progress=False))


class StubModel:
    "A sentence embedder stand-in: a fixed vector per text (what `Embedder` calls `encode` on)."
    def encode(self, texts, **kw):
        return np.stack([np.random.default_rng(len(t)).standard_normal(384) for t in texts]).astype(np.float32)


def test_damaged_pages_in_the_embedding_cache(tmp_path):
    from reasoning_integrity.models.embed import Embedder
    path = tmp_path / "embeddings.sqlite"
    texts = [f"sentence number {i} " * (i % 7 + 1) for i in range(400)]
    e = Embedder("stub-model", cache_path=path, executor="local"); e._model = StubModel()
    first = e.encode(texts)
    e._db.close()
    spoil_pages(path, middle_pages(path))
    warm = Embedder("stub-model", cache_path=path, executor="local"); warm._model = StubModel()
    with pytest.raises(CacheCorrupt) as err:
        warm.encode(texts)
    msg = str(err.value)
    assert str(path) in msg and "damaged embedding cache" in msg and f"ri cache clear --path {path}" in msg, msg
    warm._db.close()
    rc, out, err_ = run_cli("cache", "info", "--path", path)
    assert rc == 1 and str(path) in err_ and "damaged" in err_, (rc, out, err_)
    rc, out, err_ = run_cli("cache", "clear", "--path", path)
    assert rc == 0 and "deleted it (the embedding cache is rebuilt as needed)" in err_ and not path.exists(), (rc, err_)
    fresh = Embedder("stub-model", cache_path=path, executor="local"); fresh._model = StubModel()
    np.testing.assert_array_equal(fresh.encode(texts), first)


def test_damaged_pages_in_the_nli_cache(tmp_path):
    from reasoning_integrity.models.nli import NLIModel
    path = tmp_path / "nli.sqlite"
    prem, hyp = [f"premise {i}" for i in range(3000)], [f"hypothesis {i}" for i in range(3000)]
    s = NLIModel("stub-nli-model", cache_path=path)       # never loaded: every pair is in the cache
    s._db.put({s.key(p, h): np.array([0.7, 0.2, 0.1], np.float32) for p, h in zip(prem, hyp)})
    check = NLIModel("stub-nli-model", cache_path=path)
    np.testing.assert_allclose(check.predict(prem[:5], hyp[:5])[:, 0], 0.7, atol=1e-6)
    check._db.close(); s._db.close()                        # the last connection closed: every page is in the file
    spoil_pages(path, middle_pages(path))
    warm = NLIModel("stub-nli-model", cache_path=path)
    with pytest.raises(CacheCorrupt) as e: warm.predict(prem, hyp)
    msg = str(e.value)
    assert str(path) in msg and "damaged NLI cache" in msg and f"ri cache clear --path {path}" in msg, msg
    warm._db.close()
    rc, out, err = run_cli("cache", "info", "--path", path)
    assert rc == 1 and str(path) in err and "quick_check" in err, (rc, out, err)
    assert run_cli("cache", "clear", "--path", path)[0] == 0 and not path.exists()
