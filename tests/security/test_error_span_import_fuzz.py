"""Hostile error-span studies (hypothesis): WMT TSVs with broken marks, ragged rows, bad offsets, NUL bytes and
undecodable bytes, and judgment lines whose span answers hold hostile values. Each is imported whole or refused
whole with an ImportRejected naming lines; never another exception, never a judgment or span half-written."""

import io
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from annotation.models import ErrorSpan, Item, Judgment
from annotation.services import item_import, judgment_import, project_create
from tests.annotation.factories import UserFactory
from tests.security.test_import_fuzz import FUZZ, _refused_cleanly, hostile_scalars, json_values

TEXT = "Ein 😀 Satz."
HEADER = "system\tdoc\tdoc_id\tseg_id\trater\tsource\ttarget\tcategory\tseverity"
_PROJECT = {}


def mqm_project():
    """One project per test function (hypothesis runs every example in the test's one transaction)."""
    project = _PROJECT.get("project")
    if project is None or not Item.objects.filter(project_id=project.pk).exists():
        project = project_create(created_by=UserFactory(), name="mqm fuzz", task_type="mqm", criteria=[{"name": "M"}])
        line = {"external_id": "1", "input": "A sentence.", "outputs": [{"system": "A", "text": TEXT}]}
        item_import(project=project, stream=io.BytesIO(json.dumps(line).encode()))
        _PROJECT["project"] = project
    return project


cells = st.sampled_from(
    [
        "A",
        "1",
        "r1",
        "Major",
        "minor",
        "Accuracy/Mistranslation",
        "No-error",
        "",
        "\x00",
        "\r",
        "<v>",
        "</v>",
        "<v>x</v>",
        f"<v>{TEXT}</v>",
        f"{TEXT}</v><v>",
        "-1",
        "99999999999999999999",
    ]
)
rows = st.lists(cells, min_size=0, max_size=11).map("\t".join)
tsv_text = st.lists(rows, max_size=5).map(lambda r: "\n".join([HEADER, *r]).encode())
tsv_bytes = tsv_text | st.binary(max_size=300).map(lambda b: HEADER.encode() + b"\n" + b)
span = st.fixed_dictionaries(
    {},
    optional={
        "start": st.just(4) | hostile_scalars | json_values,
        "end": st.just(6) | hostile_scalars | json_values,
        "severity": st.just("major") | hostile_scalars,
        "category": st.just("Accuracy/Mistranslation") | hostile_scalars,
        "side": st.sampled_from(["target", "source", "both"]) | hostile_scalars,
        "origin": st.sampled_from(["added", "accepted", "rejected"]) | hostile_scalars,
        "proposal": hostile_scalars | json_values,
    },
)
answers = st.fixed_dictionaries(
    {}, optional={"spans": st.lists(span, max_size=3) | json_values, "no_error": st.booleans() | hostile_scalars}
)
answer_lines = st.lists(
    st.fixed_dictionaries({"item": st.just("1"), "rater": st.just("r"), "criterion": st.just("M"),
                           "system": st.just("A"), "value": answers | json_values}),
    min_size=1, max_size=3,
).map(lambda records: "".join(json.dumps(r) + "\n" for r in records).encode())  # fmt: skip


def _counts(project):
    return Judgment.objects.filter(project=project).count(), ErrorSpan.objects.filter(judgment__project=project).count()


@pytest.mark.django_db
@FUZZ
@given(data=tsv_bytes)
def test_the_tsv_import_survives_hostile_files(data):
    project = mqm_project()
    _refused_cleanly(lambda: judgment_import(project=project, stream=io.BytesIO(data), fmt="tsv"),
                     lambda: _counts(project))  # fmt: skip


@pytest.mark.django_db
@FUZZ
@given(data=answer_lines)
def test_span_answers_survive_hostile_values(data):
    project = mqm_project()
    _refused_cleanly(lambda: judgment_import(project=project, stream=io.BytesIO(data)), lambda: _counts(project))
