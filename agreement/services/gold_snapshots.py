"""Each rater's gold accuracy stored beside the agreement snapshots, so the dashboard's rater table
reads it from snapshots like every other figure. Gold items never enter agreement (the judgment
records leave them out); this is a separate figure, counted as quality control counts it."""

from agreement.engine.names import Window as WindowName
from agreement.engine.rows import RowBuilder, Scope, ScopeId, Window
from agreement.stats import InsufficientDataError
from annotation.models import Project
from annotation.selectors.quality import gold_accuracy

GOLD_ACCURACY = "gold_accuracy"


def gold_accuracy_rows(project: Project, weeks: list, builder: RowBuilder) -> None:
    """Per rater with gold answers and per agreement week: accuracy on the gold answers of that week
    and cumulative to it, with n the answers (after the training items, as on the QC pages)."""
    for rater_id, accuracy in sorted(gold_accuracy(project).items()):
        scope = ScopeId(Scope.RATER, f"rater={rater_id}", rater_a=rater_id)
        answered = sorted(accuracy.weeks.items())
        for week in weeks:
            correct, n = accuracy.weeks.get(week, (0, 0))
            if n:
                builder.add(
                    Window(WindowName.WEEK, week, slice(0)),
                    scope,
                    GOLD_ACCURACY,
                    correct / n,
                    n_units=n,
                    detail={"correct": correct},
                )
            correct = sum(c for w, (c, _) in answered if w <= week)
            n = sum(k for w, (_, k) in answered if w <= week)
            builder.add(
                Window(WindowName.CUMULATIVE, week, slice(0)),
                scope,
                GOLD_ACCURACY,
                correct / n if n else InsufficientDataError("no gold answers yet"),
                n_units=n,
                detail={"correct": correct},
            )
