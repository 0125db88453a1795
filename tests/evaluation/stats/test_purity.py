"""evaluation.stats and evaluation.metrics are libraries: importing them must not import Django."""

import subprocess
import sys

import pytest


@pytest.mark.parametrize("module", ["evaluation.stats", "evaluation.metrics"])
def test_importing_does_not_load_django(module):
    code = (
        f"import sys, {module}; "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('django', 'rest_framework', 'celery')); "
        "print(','.join(bad)); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"{module} imported {done.stdout.strip()} {done.stderr[-500:]}"
