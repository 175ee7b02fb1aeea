"""The import directions docs/architecture.md §1 states, checked on the source itself."""

import ast
from pathlib import Path

from django.conf import settings

# package -> the project packages it may import (docs/architecture.md §1).
ALLOWED = {
    "engine": set(),
    "competition": set(),
    "outbox": {"config"},
    "gameplay": {"engine", "outbox", "config"},
    "tournaments": {"gameplay", "engine", "competition", "outbox", "config"},
    "leagues": {"gameplay", "engine", "competition", "outbox", "config"},
    "config": {"outbox"},
}
# The composition root inside config/: the modules that wire or read every app.
COMPOSITION_ROOT = {"config/asgi.py", "config/consumers.py", "config/notices.py", "config/views.py"}


def imported_packages(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found & set(ALLOWED)


def test_every_package_imports_only_what_the_architecture_allows():
    root = Path(settings.BASE_DIR)
    wrong = []
    for package, allowed in ALLOWED.items():
        for path in sorted((root / package).rglob("*.py")):
            name = str(path.relative_to(root))
            if name in COMPOSITION_ROOT:
                continue
            for other in sorted(imported_packages(path) - allowed - {package}):
                wrong.append(f"{name} imports {other}")
    assert wrong == []


def test_the_check_sees_a_forbidden_import(tmp_path):
    module = tmp_path / "rule.py"
    module.write_text("from leagues.models import League\nimport tournaments.bracket\n")
    assert imported_packages(module) == {"leagues", "tournaments"}
