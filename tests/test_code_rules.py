"""The code rules of pyproject.toml hold in CI too: ruff's lint and the import-linter contracts (the
statistics packages stay pure numpy; annotation imports neither evaluation, agreement, console nor
staffing; audit sits below the apps' services)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _run(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_ruff_finds_nothing():
    result = _run(str(BIN / "ruff"), "check", ".", "--output-format", "concise")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_import_contracts_are_kept():
    result = _run(str(BIN / "lint-imports"))
    assert result.returncode == 0, result.stdout + result.stderr
