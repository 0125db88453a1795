"""The error-span reader: one rating per current judgment (spans or none), lengths in code points, rejected
proposals and revised judgments left out."""

import numpy as np
import pytest

from annotation.models import ErrorSpan, Output
from annotation.selectors.error_spans import span_ratings
from tests.annotation.factories import ItemFactory, JudgmentFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_ratings_and_spans_in_code_points():
    project = ProjectFactory()
    item = ItemFactory(project=project, input="源文 🙂", subgroup="news")
    Output.objects.filter(item=item).update(text="a 🙂 b\u0301 c")  # astral and combining characters
    rater_a, rater_b = UserFactory(), UserFactory()
    marked = JudgmentFactory(item=item, rater=rater_a, value=70)
    clean = JudgmentFactory(item=item, rater=rater_b, value=95)
    JudgmentFactory(
        item=item, rater=rater_b, value=10, is_current=False, output=clean.output, criterion=clean.criterion
    )
    ErrorSpan.objects.create(judgment=marked, start=4, end=6, severity="major", category="Fluency/Spelling")
    ErrorSpan.objects.create(judgment=marked, start=0, end=1, severity="minor", side="source")
    ErrorSpan.objects.create(judgment=marked, start=2, end=3, severity="minor", origin="rejected")

    r = span_ratings(project.pk)

    assert list(r.judgment) == [marked.pk, clean.pk]
    assert list(r.value) == [70.0, 95.0]
    assert list(r.target_length) == [8, 8] and list(r.source_length) == [4, 4]
    assert list(r.subgroup) == ["news", "news"] and list(r.system) == ["sysA", "sysA"]
    assert r.submitted_at.dtype == np.dtype("datetime64[us]")
    assert list(r.span_rating) == [0, 0]
    assert list(r.side) == ["source", "target"]
    assert list(zip(r.start, r.end, strict=True)) == [(0, 1), (4, 6)]
    assert list(r.severity) == ["minor", "major"] and list(r.category) == ["", "Fluency/Spelling"]

    with_rejected = span_ratings(project.pk, include_rejected=True)
    assert list(with_rejected.origin) == ["added", "rejected", "added"]


def test_empty_project_gives_empty_arrays():
    r = span_ratings(ProjectFactory().pk)
    assert len(r) == 0 and r.start.dtype == np.int64 and r.span_rating.shape == (0,)


def test_of_raters_keeps_their_ratings_and_spans():
    project = ProjectFactory()
    item = ItemFactory(project=project)
    raters = [UserFactory() for _ in range(3)]
    judgments = [JudgmentFactory(item=item, rater=r, value=v) for r, v in zip(raters, (10, 20, 30), strict=True)]
    for j, (start, end) in zip(judgments, ((0, 1), (1, 2), (2, 3)), strict=True):
        ErrorSpan.objects.create(judgment=j, start=start, end=end, severity="minor")

    r = span_ratings(project.pk).of_raters({raters[0].pk, raters[2].pk})

    assert list(r.value) == [10.0, 30.0]
    assert list(r.span_rating) == [0, 1] and list(r.start) == [0, 2]
