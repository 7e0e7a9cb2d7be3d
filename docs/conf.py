# Sphinx configuration of the docs site. `docs/build.py` stages the pages into `_docs_src/` (executed library
# notebooks, the API reference, one page per experiment report) and runs Sphinx on them with this file.
from pathlib import Path
import jupyter_server_mathjax

project = "reasoning_integrity"
author = "reasoning_integrity developers"
copyright = "2026 onwards, reasoning_integrity developers"

extensions = ["myst_nb", "sphinx.ext.mathjax"]
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 3
nb_execution_mode = "off"          # build.py executes the library notebooks itself; reports are already executed
nb_output_stderr = "remove-warn"   # warnings printed by libraries are not part of a page
suppress_warnings = ["myst.header", "mystnb.unknown_mime_type", "misc.highlighting_failure", "myst.xref_missing"]
exclude_patterns = ["_build", "**.ipynb_checkpoints"]

html_theme = "sphinx_book_theme"
html_title = "reasoning_integrity"
html_theme_options = {"show_toc_level": 2, "navigation_with_keys": False, "use_download_button": False}
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_extra_path = ["_extra"]
html_favicon = "_static/favicon.svg"
html_context = {"default_mode": "light"}       # CSV files of the reports, linked from their pages
html_last_updated_fmt = None

# MathJax served from the site itself (the machine is offline): MathJax 2.7 as shipped by jupyter-server-mathjax.
_MJ = Path(jupyter_server_mathjax.__file__).parent / "static"
mathjax_path = "mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full"
mathjax2_config = {"extensions": ["tex2jax.js"], "jax": ["input/TeX", "output/HTML-CSS"],  # the packaged config names neither
                   "tex2jax": {"inlineMath": [["\\(", "\\)"]], "displayMath": [["\\[", "\\]"]],
                               "processRefs": False, "processEnvironments": True,
                               # MyST-NB marks pages tex2jax_ignore and math nodes "math": process those only
                               "ignoreClass": "tex2jax_ignore|mathjax_ignore",
                               "processClass": "tex2jax_process|mathjax_process|math|output_area"},
                   "messageStyle": "none", "showMathMenu": False,
                   # the package ships the STIX-Web fonts only: use them (the default TeX fonts would 404)
                   "HTML-CSS": {"availableFonts": ["STIX"], "preferredFont": "STIX", "webFont": "STIX-Web"},
                   "SVG": {"font": "STIX-Web"}}


def setup(app):
    "Copy MathJax into the built site's _static/mathjax."
    import shutil
    def _copy(app, exc):
        if exc is None and app.builder.format == "html":
            dest = Path(app.outdir) / "_static" / "mathjax"
            if not (dest / "MathJax.js").exists(): shutil.copytree(_MJ, dest, dirs_exist_ok=True)
    app.connect("build-finished", _copy)
