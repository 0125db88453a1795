"""agreement.stats is a library, and the agreement engine runs without Django: importing any of their modules
must not import Django (or Celery, DRF)."""

import inspect
import pkgutil
import subprocess
import sys
from pathlib import Path

import agreement.engine
import agreement.stats

REPO = Path(__file__).resolve().parents[3]
MODULES = [
    f"{package.__name__}.{m.name}"
    for package in (agreement.stats, agreement.engine)
    for m in pkgutil.iter_modules(package.__path__)
]


def test_modules_import_without_django():
    # one fresh interpreter imports every stats module (the package __init__ imports them all anyway)
    code = (
        "import sys, importlib\n"
        f"for name in {MODULES!r}:\n"
        "    importlib.import_module(name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in {'django', 'rest_framework', 'celery'})\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "", f"agreement.stats or agreement.engine imported {out.stdout.strip()}"
    assert len(MODULES) > 20 and "agreement.engine.walker" in MODULES


def test_public_names_are_all_exported():
    public = {
        name
        for name in dir(agreement.stats)
        if not name.startswith("_") and not inspect.ismodule(getattr(agreement.stats, name))
    }
    assert set(agreement.stats.__all__) == public
