"""The answers behind an export's soft labels: per unit (an output, or a pairwise item's first output) of one
criterion, what the raters were shown and each rater's answer, from the judgments results use."""

from collections.abc import Iterator
from itertools import groupby
from operator import itemgetter

from annotation.models import Criterion, Output

from .export import ExportScope


def soft_label_units(scope: ExportScope, criterion: Criterion) -> Iterator[tuple]:
    """``(item, system, text, subgroup, [(rater, value)])`` per unit in item order; ``text`` holds the
    item's input and every output of its screen by system. Two queries."""
    rows = (
        scope.included()
        .filter(criterion=criterion)
        .order_by("item_id", "output__position", "rater_id")
        .values_list("item_id", "item__external_id", "output__system", "item__subgroup", "rater_id", "value")
    )
    rows = list(rows.iterator(chunk_size=10_000))
    texts: dict[int, dict] = {}
    for item_id, item_input, system, text in (
        Output.objects.filter(item_id__in={r[0] for r in rows})
        .order_by("item_id", "position")
        .values_list("item_id", "item__input", "system", "text")
        .iterator(chunk_size=10_000)
    ):
        texts.setdefault(item_id, {"input": item_input, "outputs": {}})["outputs"][system] = text
    for (item_id, system), group in groupby(rows, key=itemgetter(0, 2)):
        ratings = list(group)
        answers = [(scope.rater_names.get(r[4], str(r[4])), r[5]) for r in ratings]
        yield ratings[0][1], system, texts[item_id], ratings[0][3], answers
