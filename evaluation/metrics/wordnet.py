"""WordNet 3.0 for METEOR's synonym module, read by NLTK from Debian's ``wordnet-base`` and
``wordnet-sense-index`` packages (no download).

NLTK's reader wants ``lexnames`` beside the database files, which Debian does not ship, and it
refuses a corpus folder reached through a symbolic link or outside its data paths; so the database is copied once into a
folder of our own and ``lexnames`` is written there from the table of the lexnames(5WN) manual.
"""

import os
import shutil
import tempfile
import warnings
from functools import lru_cache
from pathlib import Path

DEBIAN_WORDNET = Path("/usr/share/wordnet")
INSTALL_HINT = "WordNet 3.0 is not installed (apt-get install wordnet-base wordnet-sense-index)"
# what the reader opens: the index and data files per part of speech, the exception lists (morphy)
# and index.sense (from wordnet-sense-index)
_FILES = [f"{kind}.{pos}" for kind in ("index", "data") for pos in ("noun", "verb", "adj", "adv")]
_FILES += [f"{pos}.exc" for pos in ("noun", "verb", "adj", "adv")] + ["index.sense"]
# lexnames(5WN), "Lexicographer Files": file number = position; the syntactic category (third
# field) is 1 noun, 2 verb, 3 adjective, 4 adverb, as the name's prefix says
_LEXNAMES = (
    "adj.all adj.pert adv.all noun.Tops noun.act noun.animal noun.artifact noun.attribute noun.body "
    "noun.cognition noun.communication noun.event noun.feeling noun.food noun.group noun.location "
    "noun.motive noun.object noun.person noun.phenomenon noun.plant noun.possession noun.process "
    "noun.quantity noun.relation noun.shape noun.state noun.substance noun.time verb.body verb.change "
    "verb.cognition verb.communication verb.competition verb.consumption verb.contact verb.creation "
    "verb.emotion verb.motion verb.perception verb.possession verb.social verb.stative verb.weather "
    "adj.ppl"
).split()
_CATEGORY = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}


class WordNetMissing(RuntimeError):
    """The WordNet 3.0 database files are not on this machine."""


def lexnames_text() -> str:
    """The ``lexnames`` file: number, name and syntactic category, tab separated.

    >>> lexnames_text().splitlines()[3]
    '03\\tnoun.Tops\\t1'
    """
    return "".join(f"{k:02d}\t{name}\t{_CATEGORY[name.split('.')[0]]}\n" for k, name in enumerate(_LEXNAMES))


def wordnet_missing(source: Path = DEBIAN_WORDNET) -> list[str]:
    """The database files NLTK needs that are not in ``source``."""
    return [name for name in _FILES if not (source / name).is_file()]


def wordnet_assemble(target: Path, *, source: Path = DEBIAN_WORDNET) -> Path:
    """``target`` made a WordNet folder NLTK reads (the database copied from ``source``, plus
    ``lexnames``), unless it already is one; written beside and renamed into place, so a
    concurrent or interrupted run never leaves half a folder."""
    target = Path(target)
    if (target / "lexnames").is_file():
        return target
    if missing := wordnet_missing(source):
        raise WordNetMissing(f"{INSTALL_HINT}: no {', '.join(missing)} in {source}")
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".wordnet-", dir=target.parent))
    for name in _FILES:
        shutil.copyfile(source / name, staging / name)
    (staging / "lexnames").write_text(lexnames_text(), encoding="ascii")
    try:
        os.replace(staging, target)
    except OSError:
        # another process got there first (the target is a non-empty folder now)
        shutil.rmtree(staging, ignore_errors=True)
    return target


@lru_cache(maxsize=4)
def wordnet_reader(nltk_data: Path, source: Path = DEBIAN_WORDNET):
    """NLTK's WordNet reader over ``<nltk_data>/corpora/wordnet``, assembled from ``source`` when
    missing (WordNetMissing if the Debian packages are not installed)."""
    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    nltk_data = Path(nltk_data).resolve()
    folder = wordnet_assemble(nltk_data / "corpora" / "wordnet", source=source)
    # NLTK reads corpora only under its data paths, and finds "wordnet" there to map its
    # sense keys onto the loaded version (the same one here)
    if str(nltk_data) not in nltk.data.path:
        nltk.data.path.append(str(nltk_data))
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "The multilingual functions are not available")
        return WordNetCorpusReader(str(folder), None)
