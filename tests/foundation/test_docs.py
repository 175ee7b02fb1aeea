"""The docs name only what exists: every repository path and Python name they cite in
backticks, and every relative link, is checked against the checkout.

A path is a backticked word of letters, digits, `_`, `-`, `.` and `/` that has a slash or
a file extension (`tournaments/bracket.py`, `engine/`, `.ci/run`); it is read from the
repository root, and a bare file name (`api_bench.py`) must be some file in the repository.
Paths under what .gitignore keeps out of the repository (`var/`, made at run time) are not
repository paths. A dotted name that starts with one of the project's packages
(`config.jobs.enqueue`) must import, or name a permission of that app (`app_label.codename`).
Fenced blocks (shell sessions, Mermaid) are not checked.
"""

import importlib
import os
import re
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings

ROOT = Path(settings.BASE_DIR)
DOCS = ["docs/architecture.md", "docs/operations.md", "README.md"]
EXTENSIONS = {"py", "md", "toml", "yml", "yaml", "html", "txt", "json", "cfg", "ini", "sh"}

FENCE = re.compile(r"^```.*?^```", re.M | re.S)
CODE = re.compile(r"`([^`\n]+)`")
LINK = re.compile(r"\]\(([^)\s]+)\)")
PATH = re.compile(r"[\w.\-]+(/[\w.\-]+)*/?")
DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+")


def _prose(doc: str) -> str:
    return FENCE.sub("", (ROOT / doc).read_text())


def _ignored() -> list[str]:
    """Folders .gitignore keeps out of the repository (plain `name/` lines)."""
    lines = (ROOT / ".gitignore").read_text().splitlines()
    return [line.strip() for line in lines if re.fullmatch(r"[\w.\-]+/", line.strip())]


def _packages() -> set[str]:
    return {p.name for p in ROOT.iterdir() if (p / "__init__.py").is_file()}


def _is_path(word: str) -> bool:
    if not PATH.fullmatch(word) or word.startswith("/"):
        return False
    return "/" in word or ("." in word[1:] and word.rsplit(".", 1)[-1] in EXTENSIONS)


def _repository_files() -> set[str]:
    """Names of the repository's files, without walking ignored folders or .git."""
    skip = {name.rstrip("/") for name in _ignored()} | {".git"}
    names = set()
    for _folder, subfolders, files in os.walk(ROOT):
        subfolders[:] = [name for name in subfolders if name not in skip]
        names.update(files)
    return names


def _exists(word: str, files: set[str]) -> bool:
    target = (ROOT / word).resolve()
    if not target.is_relative_to(ROOT.resolve()):
        return False
    if target.exists():
        return True
    return "/" not in word and word in files


def _imports(name: str) -> bool:
    """`name` is a module, or an attribute reached from the longest module that imports."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        module_name = ".".join(parts[:cut])
        try:
            found = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name is None or not f"{module_name}.".startswith(f"{exc.name}."):
                raise  # the module exists but one it imports is missing: a real error
            continue
        for attribute in parts[cut:]:
            if not hasattr(found, attribute):
                return False
            found = getattr(found, attribute)
        return True
    return False


def _is_permission(name: str) -> bool:
    label, _, codename = name.partition(".")
    try:
        models = apps.get_app_config(label).get_models()
    except LookupError:
        return False
    return any(
        codename in {code for code, _ in model._meta.permissions}
        or codename
        in {f"{action}_{model._meta.model_name}" for action in model._meta.default_permissions}
        for model in models
    )


@pytest.mark.parametrize("doc", DOCS)
def test_every_backticked_path_exists(doc):
    ignored = tuple(_ignored())
    files = _repository_files()
    words = {w for w in CODE.findall(_prose(doc)) if _is_path(w) and not w.startswith(ignored)}
    assert words, f"{doc} cites no paths: the pattern is broken"
    missing = sorted(w for w in words if not _exists(w, files))
    assert not missing, f"{doc} cites paths that are not in the repository: {missing}"


@pytest.mark.parametrize("doc", DOCS)
def test_every_relative_link_resolves(doc):
    targets = {t.split("#")[0] for t in LINK.findall(_prose(doc)) if "://" not in t}
    base = (ROOT / doc).parent
    missing = sorted(t for t in targets if t and not (base / t).resolve().exists())
    assert not missing, f"{doc} links to files that do not exist: {missing}"


@pytest.mark.parametrize("doc", DOCS)
def test_every_dotted_name_imports(doc):
    packages = _packages()
    names = set()
    for word in CODE.findall(_prose(doc)):
        word = re.sub(r"\(.*\)$", "", word)  # `engine.fair.commitment(seed)` names the function
        if DOTTED.fullmatch(word) and word.split(".")[0] in packages:
            names.add(word)
    broken = sorted(n for n in names if not _imports(n) and not _is_permission(n))
    assert not broken, f"{doc} cites names that do not import: {broken}"


def test_the_architecture_page_cites_names():
    """Guards the check above against a pattern that silently matches nothing."""
    words = CODE.findall(_prose("docs/architecture.md"))
    assert "config.jobs.enqueue" in words
    assert "tournaments/bracket.py" in words
