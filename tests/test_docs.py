"""The docs build's own checks that need no browser (the browser test is `make docs-test`)."""
import sys
from pathlib import Path
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs"))
import build  # noqa: E402


def test_index_notebook_holds_the_readme():
    "nbs/index.ipynb is the home page and nbdev's readme_nb: it must hold README.md's text, so neither says less."
    assert build.sync_index(check=True), "run `make docs-sync` after editing README.md"


def test_report_tables_state_their_row_count(tmp_path):
    df = pd.DataFrame({"x": range(7)})
    df.to_csv(tmp_path / "t.csv", index=False)
    html, n = build._table_html(tmp_path / "t.csv", max_rows=5)
    assert n == 7 and html.count("<tr") == 1 + 5          # header + the first 5 rows
    (tmp_path / "e.csv").write_text("")
    assert build._table_html(tmp_path / "e.csv", 5) == ("<p><em>empty table</em></p>", 0)


def test_directives_are_hidden_and_hidden_cells_dropped():
    import nbformat
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("#| export\ndef f(): pass"), nbformat.v4.new_code_cell("#| hide\nx = 1"),
                nbformat.v4.new_markdown_cell("$$a$$")]
    build._strip_directives(nb)
    assert [c.source for c in nb.cells] == ["def f(): pass", "$$a$$"]
    assert nb.metadata["language_info"]["name"] == "python"
