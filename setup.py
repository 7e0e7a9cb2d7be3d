"""Packaging for reasoning_integrity: every field comes from settings.ini (nbdev's single source of truth)."""
from configparser import ConfigParser
from pathlib import Path
import setuptools

cfg = ConfigParser(delimiters=["="])
cfg.read(Path(__file__).parent / "settings.ini", encoding="utf-8")
cfg = cfg["DEFAULT"]

def _reqs(key):
    # Requirements are space-separated in settings.ini; version specifiers contain no spaces.
    return cfg.get(key, "").split()

readme = Path(__file__).parent / "README.md"
setuptools.setup(
    name=cfg["lib_name"],
    version=cfg["version"],
    description=cfg["description"],
    long_description=readme.read_text(encoding="utf-8") if readme.exists() else "",
    long_description_content_type="text/markdown",
    author=cfg["author"],
    author_email=cfg["author_email"],
    license="Apache-2.0",
    url=cfg["git_url"],
    keywords=cfg["keywords"].split(),
    classifiers=["Programming Language :: Python :: 3", "License :: OSI Approved :: Apache Software License",
                 "Framework :: Jupyter", "Topic :: Scientific/Engineering :: Artificial Intelligence"],
    project_urls={"Source": cfg["git_url"]},
    packages=setuptools.find_packages(include=["reasoning_integrity", "reasoning_integrity.*"]),
    include_package_data=True,
    package_data={"reasoning_integrity": ["assets/*", "assets/**/*"]},
    python_requires=">=" + cfg["min_python"],
    install_requires=_reqs("requirements"),
    extras_require={"dev": _reqs("dev_requirements"), "docs": _reqs("docs_requirements"), "ray": _reqs("ray_requirements"),
                    "logs": _reqs("logs_requirements")},
    entry_points={
        "console_scripts": cfg["console_scripts"].split(),
        "nbdev": [f"{cfg['lib_path']}={cfg['lib_path']}._modidx:d"],
        # inspect_ai loads this module to find the package's scorers: `inspect score LOG --scorer reasoning_integrity/integrity`
        "inspect_ai": [f"{cfg['lib_path']}={cfg['lib_path']}.inspect"],
        # the modules that register components when imported (core.registry imports them on a name not yet known, or
        # on a listing); the name's number is the declared order, which orders listings and report tables (provider_rank)
        "reasoning_integrity.components": [f"{i:02d}.{m}={cfg['lib_path']}.{m}" for i, m in enumerate(cfg["component_modules"].split())],
    },
    zip_safe=False,
)
