"""No code outside the task type packages names a task type (DESIGN §2): the apps ask the registry for the
type's facts instead. Python: no string constant equal to a registered slug; templates and scripts: no
quoted slug. Migrations are history and exempt."""

import ast
import re
from pathlib import Path

from annotation.task_types import REGISTRY

ROOT = Path(__file__).resolve().parents[3]
APPS = ("core", "annotation", "evaluation", "agreement", "audit", "console", "staffing", "config")
PLUGINS = ROOT / "annotation" / "task_types"


def _outside_plugins(paths):
    return [p for p in paths if PLUGINS not in p.parents and "migrations" not in p.parts]


def test_no_python_module_outside_the_task_types_names_a_task_type():
    found = []
    for path in _outside_plugins(p for app in APPS for p in (ROOT / app).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Constant) and node.value in REGISTRY:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}")
    assert not found, (
        "these name a task type; read the type's facts from the registry instead "
        "(annotation.task_types.facts):\n" + "\n".join(found)
    )


def test_no_template_or_script_outside_the_task_types_branches_on_a_task_type():
    slugs = "|".join(map(re.escape, REGISTRY))
    quoted = re.compile(rf"""["']({slugs})["']""")
    files = [*(ROOT / "templates").rglob("*.html"), *(ROOT / "static").rglob("*.js")]
    found = [
        f"{path.relative_to(ROOT)}:{n}: {m.group(0)}"
        for path in _outside_plugins(files)
        if not path.name.endswith(".min.js")
        for n, line in enumerate(path.read_text().splitlines(), start=1)
        for m in quoted.finditer(line)
    ]
    assert not found, (
        "these name a task type; pass the type's facts in the context or declare them in "
        "the type's own template:\n" + "\n".join(found)
    )


def test_the_check_would_catch_a_branch():
    tree = ast.parse(f'if project.task_type == "{next(iter(REGISTRY))}": pass')
    assert any(isinstance(n, ast.Constant) and n.value in REGISTRY for n in ast.walk(tree))
