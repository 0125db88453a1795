"""METEOR with WordNet 3.0 synonyms: NLTK's meteor_score with the WordNet assembled from Debian's
packages, the synonym path, and "unavailable" without WordNet."""

import gzip
import random
import re
from pathlib import Path

import pytest
from nltk.translate.meteor_score import meteor_score

from evaluation.metrics import MetricResources, MetricUnavailable, compute_metrics, metric_spec, tokens
from evaluation.metrics.wordnet import DEBIAN_WORDNET, lexnames_text, wordnet_reader

needs_wordnet = pytest.mark.skipif(
    not (DEBIAN_WORDNET / "index.sense").is_file(), reason="apt-get install wordnet-base wordnet-sense-index"
)


@pytest.fixture(scope="module")
def nltk_data(tmp_path_factory):
    return tmp_path_factory.mktemp("nltk_data")


@pytest.mark.slow
@needs_wordnet
def test_meteor_is_nltks_with_the_same_wordnet(nltk_data):
    rng = random.Random(3)
    words = "the a big large great car auto automobile house home dog hound quick fast ran run sat on mat".split()
    outputs = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 10))) for _ in range(150)]
    references = [[" ".join(rng.choice(words) for _ in range(rng.randint(1, 10))) for _ in range(2)] for _ in outputs]
    got = compute_metrics(outputs, references, ["meteor"], MetricResources(nltk_data=nltk_data))["meteor"]
    wordnet = wordnet_reader(nltk_data)
    for score, output, refs in zip(got, outputs, references, strict=True):
        refs = [r for r in refs if r != output]
        expected = meteor_score([tokens(r) for r in refs], tokens(output), wordnet=wordnet) if refs else None
        assert expected is None or abs(score - expected) < 1e-12


@needs_wordnet
def test_synonyms_match(nltk_data):
    # "auto" and "car" share WordNet 3.0's synset car.n.01; both are their own Porter stems
    resources = MetricResources(nltk_data=nltk_data)
    synonym = compute_metrics(["the auto stopped"], [["the car stopped"]], ["meteor"], resources)["meteor"][0]
    unrelated = compute_metrics(["the tree stopped"], [["the car stopped"]], ["meteor"], resources)["meteor"][0]
    exact = compute_metrics(["The car stopped"], [["the car stopped"]], ["meteor"], resources)["meteor"][0]
    assert unrelated < synonym == pytest.approx(exact)
    assert "WordNet 3.0" in metric_spec("meteor").description


def test_without_wordnet_meteor_is_unavailable(tmp_path):
    resources = MetricResources(nltk_data=tmp_path / "nltk_data", wordnet_source=tmp_path / "no-wordnet")
    with pytest.raises(MetricUnavailable) as raised:
        compute_metrics(["a cat"], [["the cat"]], ["meteor"], resources)
    assert str(raised.value) == (
        "meteor is unavailable because WordNet 3.0 is not installed (apt-get install wordnet-base wordnet-sense-index)"
    )
    assert not (tmp_path / "nltk_data" / "corpora" / "wordnet").exists()


@needs_wordnet
def test_assembled_folder_is_real_files_with_lexnames(nltk_data):
    wordnet_reader(nltk_data)
    folder = nltk_data / "corpora" / "wordnet"
    assert not folder.is_symlink() and not any(p.is_symlink() for p in folder.iterdir())
    assert (folder / "lexnames").read_text() == lexnames_text()


@pytest.mark.skipif(
    not Path("/usr/share/man/man5/lexnames.5WN.gz").is_file(), reason="wordnet-base's lexnames(5WN) page is absent"
)
def test_lexnames_is_the_manual_table():
    manual = gzip.decompress(Path("/usr/share/man/man5/lexnames.5WN.gz").read_bytes()).decode()
    rows = re.findall(r"^(\d\d)\t(\S+)\s*\t", manual, re.M)
    assert [f"{n}\t{name}" for n, name in rows] == [line.rsplit("\t", 1)[0] for line in lexnames_text().splitlines()]
