"""A project's current judgments as flat numpy arrays, read in bulk (no model instances)."""

from dataclasses import replace
from datetime import date

import numpy as np
from django.db.models import Count, DateField
from django.db.models.functions import TruncWeek

from agreement.engine.records import JudgmentRecords
from annotation.models import Criterion, Output, Project
from annotation.selectors.quality import included_judgments

# Rows fetched per round trip; 20,000 rows of 7 small fields are ~2 MB of Python tuples.
CHUNK_ROWS = 20_000


# Turn slots per output in a per-turn project's unit keys: above any turn index (a PositiveSmallIntegerField).
TURN_SLOTS = 1 << 15


def unit_key(output_id: int, turn: int | None) -> int:
    """A per-turn project's unit: the whole output (``turn`` None) or one of its assistant turns."""
    return output_id * (TURN_SLOTS + 1) + (0 if turn is None else turn + 1)


def turn_judged(records: JudgmentRecords) -> np.ndarray:
    """Which of a per-turn project's records judged one assistant turn (the rest judged a whole output)."""
    return records.unit % (TURN_SLOTS + 1) != 0


def _weeks_judged(project: Project, through: int | None):
    judgments = included_judgments(project)
    if through is not None:
        judgments = judgments.filter(id__lte=through)
    return judgments.annotate(week=TruncWeek("submitted_at", output_field=DateField()))


def judgment_week_sizes(project: Project, *, through: int | None = None) -> list[tuple[date, int]]:
    """(week, judgments) of each week with judgments agreement counts, in calendar order; only judgments
    with ids up to ``through`` when given."""
    return list(
        _weeks_judged(project, through).values("week").annotate(n=Count("id")).values_list("week", "n").order_by("week")
    )


def judgment_records_for_project(
    project: Project, *, before: date | None = None, through: int | None = None
) -> JudgmentRecords:
    """The records of the judgments agreement counts; only those of weeks before ``before`` and with ids up to
    ``through`` when given (a recompute's batch: its weeks and the earlier ones, as its plan saw them)."""
    criteria = list(Criterion.objects.filter(project=project).order_by("position", "id"))
    criterion_pos = {c.id: k for k, c in enumerate(criteria)}
    judgments = _weeks_judged(project, through)
    if before is not None:
        judgments = judgments.filter(week__lt=before)
    rows = judgments.values_list(
        "criterion_id", "output_id", "rater_id", "value", "week", "item__subgroup", "duration_ms", "turn"
    ).order_by()
    per_turn = project.rating_unit != Project.RatingUnit.CONVERSATION
    week_pos: dict[date, int] = {}
    subgroup_pos: dict[str, int] = {}
    columns: list[list] = [[], [], [], [], [], [], []]
    for criterion_id, output_id, rater_id, value, week, subgroup, duration, turn in rows.iterator(
        chunk_size=CHUNK_ROWS
    ):
        columns[0].append(criterion_pos[criterion_id])
        columns[1].append(unit_key(output_id, turn) if per_turn else output_id)
        columns[2].append(rater_id)
        columns[3].append(value)
        columns[4].append(week_pos.setdefault(week, len(week_pos)))
        columns[5].append(subgroup_pos.setdefault(subgroup, len(subgroup_pos)))
        columns[6].append(np.nan if duration is None else duration)
    weeks = sorted(week_pos)
    # renumber weeks in calendar order so that "cumulative to week k" is week_index <= k
    remap = np.empty(len(weeks), dtype=np.int32)
    for rank, w in enumerate(weeks):
        remap[week_pos[w]] = rank
    return JudgmentRecords(
        criteria=criteria,
        weeks=weeks,
        subgroups=sorted(subgroup_pos, key=lambda subgroup: subgroup_pos[subgroup]),
        criterion_index=np.asarray(columns[0], dtype=np.int32),
        unit=np.asarray(columns[1], dtype=np.int64),
        rater=np.asarray(columns[2], dtype=np.int64),
        value=np.asarray(columns[3], dtype=np.float64),
        week_index=remap[np.asarray(columns[4], dtype=np.int64)],
        subgroup_index=np.asarray(columns[5], dtype=np.int32),
        duration_ms=np.asarray(columns[6], dtype=np.float64),
    )


def implied_pair_records(records: JudgmentRecords) -> JudgmentRecords:
    """The pairwise preferences best–worst answers imply, as records: per screen (criterion, rater and item)
    with one output picked best (1) and one worst (−1), the best over every other output and every other output
    over the worst (Louviere, Flynn and Marley 2015, ch. 1); the pairs between two outputs picked neither are
    unstated. A record's unit is the pair of output ids (lower × (highest id + 1) + higher), its value 1 when
    the lower id is preferred, −1 when the higher is; the rest of a record is its screen's."""
    outputs = np.unique(records.unit)
    item_of = dict(
        Output.objects.filter(id__in=outputs.tolist()).values_list("id", "item_id").iterator(chunk_size=CHUNK_ROWS)
    )
    items = np.fromiter((item_of[u] for u in records.unit.tolist()), dtype=np.int64, count=len(records))
    order = np.lexsort((items, records.rater, records.criterion_index))
    key = np.stack([records.criterion_index[order], records.rater[order], items[order]], axis=1)
    starts = np.flatnonzero(np.r_[True, (key[1:] != key[:-1]).any(axis=1)])
    bound = int(outputs.max()) + 1 if len(outputs) else 1
    rows, units, values = [], [], []
    for start, end in zip(starts.tolist(), [*starts[1:].tolist(), len(order)], strict=True):
        screen = order[start:end]
        picked = records.value[screen]
        if (picked == 1).sum() != 1 or (picked == -1).sum() != 1:
            continue  # not a whole best–worst answer (an imported screen cut short): it states nothing
        best, worst = records.unit[screen[picked == 1][0]], records.unit[screen[picked == -1][0]]
        for row, output in zip(screen.tolist(), records.unit[screen].tolist(), strict=True):
            preferred = [(best, output)] if output != best else []
            if output not in (best, worst):
                preferred.append((output, worst))
            for winner, loser in preferred:
                low, high = min(winner, loser), max(winner, loser)
                rows.append(row)
                units.append(low * bound + high)
                values.append(1.0 if winner == low else -1.0)
    kept = np.asarray(rows, dtype=np.int64)
    return replace(
        records,
        criterion_index=records.criterion_index[kept],
        unit=np.asarray(units, dtype=np.int64),
        rater=records.rater[kept],
        value=np.asarray(values, dtype=np.float64),
        week_index=records.week_index[kept],
        subgroup_index=records.subgroup_index[kept],
        duration_ms=records.duration_ms[kept],
    )
