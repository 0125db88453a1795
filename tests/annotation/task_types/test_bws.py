"""bws: best and worst of a tuple coded per output (1, −1, 0), checked together, gold per pick, and the tuples
drawn from imported outputs by the seeded design."""

import io
import json
from collections import Counter
from itertools import combinations

import pytest
from django.core.exceptions import ValidationError

from annotation.models import Criterion, Item, Judgment, Membership
from annotation.services.assignment import assignment_next_for_rater
from annotation.services.controls import degraded_controls_create, repeat_controls_create
from annotation.services.item_import import item_import
from annotation.services.judgment_import import judgment_import
from annotation.services.judgment_submit import judgment_submit
from annotation.services.project import project_create
from annotation.task_types import TaskTypeError
from annotation.task_types.bws import TYPE
from annotation.task_types.bws.coding import BEST, NEITHER, WORST
from core.import_records import ImportRejected
from tests.annotation.factories import UserFactory
from tests.conftest import client_for

SYSTEMS = ["a", "b", "c", "d"]


def test_picks_are_coded_per_output():
    assert TYPE.code_value("best", None, SYSTEMS, "b") == ("b", BEST, "best")
    assert TYPE.code_value("worst", None, SYSTEMS, "c") == ("c", WORST, "worst")
    assert TYPE.code_value(0, None, SYSTEMS, "a") == ("a", NEITHER, "neither")  # the export's coding re-imports
    for bad in ("good", 2, True, None):
        with pytest.raises(TaskTypeError, match='value must be "best", "worst" or "neither"'):
            TYPE.code_value(bad, None, SYSTEMS, "a")
    with pytest.raises(TaskTypeError, match="system: name the output"):
        TYPE.code_value("best", None, SYSTEMS, None)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ([BEST, NEITHER, NEITHER, NEITHER], "got 1 best and 0 worst"),
        ([BEST, BEST, WORST, NEITHER], "got 2 best and 1 worst"),
        ([NEITHER] * 4, "got 0 best and 0 worst"),
    ],
)
def test_a_screen_needs_exactly_one_best_and_one_worst(values, message):
    with pytest.raises(TaskTypeError, match=message):
        TYPE.check_screen(values)
    TYPE.check_screen([NEITHER, WORST, BEST, NEITHER])


def test_the_form_names_outputs_by_their_number_on_screen():
    assert TYPE.form_field("best", "3") == (2, "best")
    assert TYPE.form_field("worst", " 1 ") == (0, "worst")
    assert TYPE.form_field("2", "neither") == (2, "neither")  # a plain field, as the API's positions
    for raw in ("0", "x", "²", ""):
        with pytest.raises(TaskTypeError, match="choose one of the outputs shown"):
            TYPE.form_field("best", raw)


def test_gold_names_the_right_picks_and_counts_each_pick():
    criteria = {"overall": None}
    gold = TYPE.normalise_gold({"best": "a", "worst": ["c", "d"]}, criteria, SYSTEMS)
    assert gold == {"overall": {"best": ["a"], "worst": ["c", "d"]}}
    assert TYPE.gold_correct(gold, "overall", "a", BEST) is True
    assert TYPE.gold_correct(gold, "overall", "b", BEST) is False
    assert TYPE.gold_correct(gold, "overall", "d", WORST) is True
    assert TYPE.gold_correct(gold, "overall", "a", NEITHER) is None  # the pick that missed counts where it went
    assert TYPE.gold_on_screen(gold, "overall", ["d", "a", "b", "c"]) == [
        {"criterion": "overall", "position": 1, "value": "best"}
    ]
    assert TYPE.gold_rows(gold) == [{"criterion": "overall", "system": "", "expected": "best: a; worst: c or d"}]
    with pytest.raises(TaskTypeError, match="both best and worst"):
        TYPE.normalise_gold({"best": "a", "worst": "a"}, criteria, SYSTEMS)
    with pytest.raises(TaskTypeError, match="'e' is not a system"):
        TYPE.normalise_gold({"overall": {"best": "e"}}, criteria, SYSTEMS)


def test_settings_default_to_tuples_of_four_twice_per_output_with_a_recorded_seed():
    config = TYPE.normalise_config(None)
    assert config["k"] == 4 and config["tuples_per_output"] == 2 and 0 <= config["seed"] < 2**31
    assert TYPE.normalise_config(config) == config  # the drawn seed is kept
    with pytest.raises(TaskTypeError, match="task_config.k must be a whole number from 2"):
        TYPE.normalise_config({"k": 1})
    with pytest.raises(TaskTypeError, match="takes k, tuples_per_output, seed, adaptive"):
        TYPE.normalise_config({"size": 4})


def test_adaptive_allocation_is_an_optional_setting_checked_as_for_pairs():
    config = TYPE.normalise_config({"seed": 3, "adaptive": {"target": "top_k", "top_k": 2}})
    assert config["adaptive"] == {
        "target": "top_k",
        "top_k": 2,
        "cold_start": None,
        "floor": 0.3,
        "refresh_every": 20,
        "weighting": "inverse_probability",
    }
    assert "adaptive" not in TYPE.normalise_config({"seed": 3, "adaptive": None})
    with pytest.raises(TaskTypeError, match="task_config.adaptive.top_k"):
        TYPE.normalise_config({"adaptive": {"target": "top_k"}})
    assert TYPE.live_config_fields == ("adaptive",) and TYPE.adaptive_unit is not None


def test_the_scale_is_fixed():
    assert TYPE.normalise_scale(None, None, []) == (-1.0, 1.0, ["worst", "neither", "best"])
    with pytest.raises(TaskTypeError, match="leave them out"):
        TYPE.normalise_scale(1, 5, [])
    screen = TYPE.screen_criterion(Criterion(name="overall", scale_min=-1, scale_max=1))
    assert [c["value"] for c in screen["choices"]] == ["best", "worst", "neither"]


def _project(lead, name="scaling", **config):
    return project_create(
        created_by=lead,
        name=name,
        task_type=TYPE.slug,
        criteria=[{"name": "overall"}],
        task_config={"seed": 11, **config},
    )


def _outputs(n: int, **extra) -> io.BytesIO:
    lines = [
        {
            "external_id": f"text{i}",
            "input": "Which is most positive?",
            "outputs": [{"system": f"t{i}", "text": f"text number {i}"}],
            **extra,
        }
        for i in range(n)
    ]
    return io.BytesIO("\n".join(json.dumps(line) for line in lines).encode())


@pytest.mark.django_db
def test_outputs_imported_one_a_line_become_the_seeded_balanced_design():
    lead = UserFactory()
    project = _project(lead)
    assert item_import(project=project, stream=_outputs(30)) == 60  # 2N tuples of k = 4

    items = list(Item.objects.filter(project=project).order_by("id").prefetch_related("outputs"))
    tuples = [sorted(o.system for o in item.outputs.all()) for item in items]
    assert all(len(t) == 4 == len(set(t)) for t in tuples)
    appearances = Counter(s for t in tuples for s in t)
    assert set(appearances.values()) == {8}  # 60 × 4 slots over 30 outputs
    together = Counter(p for t in tuples for p in combinations(t, 2))
    assert max(together.values()) <= 2  # 360 pairs over 435: almost none meet twice
    meta = items[0].meta["bws_design"]
    assert (meta["seed"], meta["k"], meta["n_tuples"], meta["n_outputs"]) == (11, 4, 60, 30)
    assert items[0].external_id == "tuple-00001" and items[0].input == "Which is most positive?"

    # the same seed draws the same design
    again = _project(lead, name="the same again")
    item_import(project=again, stream=_outputs(30))
    assert [sorted(o.system for o in i.outputs.all()) for i in again.items.order_by("id")] == tuples


@pytest.mark.django_db
def test_a_design_import_is_refused_whole_when_a_line_is_wrong():
    project = _project(UserFactory(), k=5)
    with pytest.raises(ImportRejected) as refused:
        item_import(project=project, stream=_outputs(3))
    assert "fewer than the tuples' k = 5" in str(refused.value)
    mixed = io.BytesIO(
        b'{"external_id": "x", "input": "q", "outputs": [{"system": "a", "text": "1"}]}\n'
        b'{"external_id": "y", "input": "q", "outputs": [{"system": "b", "text": "2"}, '
        b'{"system": "c", "text": "3"}]}'
    )
    with pytest.raises(ImportRejected, match="line 1: this line holds one output"):
        item_import(project=project, stream=mixed)
    with pytest.raises(ImportRejected, match="system 't0' names another output"):
        item_import(project=project, stream=io.BytesIO(_outputs(6).getvalue().replace(b'"t1"', b'"t0"')))
    assert not Item.objects.filter(project=project).exists()


@pytest.mark.django_db
def test_a_rater_answers_best_and_worst_and_the_rest_count_as_neither():
    lead, rater = UserFactory(), UserFactory()
    project = _project(lead)
    item_import(project=project, stream=_outputs(8))
    Membership.objects.create(project=project, user=rater, role=Membership.Role.RATER)
    assignment = assignment_next_for_rater(project_id=project.pk, rater=rater)
    shown = [
        o.system for o in sorted(assignment.item.outputs.all(), key=lambda o: assignment.shown_order.index(o.position))
    ]

    # the same output best and worst, or a pick missing: refused, naming what is wrong, nothing stored
    for values, message in (
        (
            [
                {"criterion": "overall", "position": 1, "value": "best"},
                {"criterion": "overall", "position": 1, "value": "worst"},
            ],
            "output 2 .as shown. is picked as both 'best' and 'worst'",
        ),
        ([{"criterion": "overall", "position": 1, "value": "best"}], "got 1 best and 0 worst"),
    ):
        with pytest.raises(ValidationError, match=message):
            judgment_submit(rater=rater, assignment_id=assignment.pk, values=values)

    stored = judgment_submit(
        rater=rater,
        assignment_id=assignment.pk,
        values=[
            {"criterion": "overall", "position": 2, "value": "best"},
            {"criterion": "overall", "position": 0, "value": "worst"},
        ],
    ).judgments
    coded = {j.output.system: (j.value, j.label) for j in stored}
    assert coded == {
        shown[0]: (WORST, "worst"),
        shown[1]: (NEITHER, "neither"),
        shown[2]: (BEST, "best"),
        shown[3]: (NEITHER, "neither"),
    }


def _judgment_lines(*answers) -> io.BytesIO:
    """Judgment lines: (rater, {system: answer}) per screen of the tuple "tuple-a"."""
    lines = [
        {"item": "tuple-a", "rater": rater, "criterion": "overall", "system": system, "value": value}
        for rater, picks in answers
        for system, value in picks.items()
    ]
    return io.BytesIO("\n".join(map(json.dumps, lines)).encode())


@pytest.mark.django_db
def test_finished_judgments_import_a_line_per_output_and_whole_screens_only():
    project = _project(UserFactory())
    tuple_line = {"external_id": "tuple-a", "input": "q", "outputs": [{"system": s, "text": s} for s in SYSTEMS]}
    item_import(project=project, stream=io.BytesIO(json.dumps(tuple_line).encode()))
    whole = {"a": "best", "b": "neither", "c": 0, "d": "worst"}

    with pytest.raises(ImportRejected) as refused:
        judgment_import(
            project=project,
            stream=_judgment_lines(("w1", whole), ("w2", {"a": "best", "d": "worst"}), ("w3", {**whole, "b": "best"})),
        )
    errors = refused.value.report.errors
    assert errors == [
        (5, "rater 'w2' answers 2 of this item's 4 outputs on this criterion: give a line for every output"),
        (
            7,
            "rater 'w3' on this item and criterion: pick exactly one best and one worst output, got 2 "
            "best and 1 worst (best and worst must be two different outputs)",
        ),
    ]
    assert not Judgment.objects.exists()

    assert judgment_import(project=project, stream=_judgment_lines(("w1", whole), ("w2", whole))) == 8
    assert sorted(Judgment.objects.values_list("value", flat=True)) == [-1, -1, 0, 0, 0, 0, 1, 1]


@pytest.mark.django_db
def test_a_resent_answer_is_the_same_whether_or_not_it_names_the_outputs_picked_neither():
    lead, rater = UserFactory(), UserFactory()
    project = _project(lead)
    item_import(project=project, stream=_outputs(8))
    Membership.objects.create(project=project, user=rater, role=Membership.Role.RATER)
    assignment = assignment_next_for_rater(project_id=project.pk, rater=rater)
    picks = [
        {"criterion": "overall", "position": 0, "value": "best"},
        {"criterion": "overall", "position": 3, "value": "worst"},
    ]
    judgment_submit(rater=rater, assignment_id=assignment.pk, values=picks, client_token="t1")
    again = judgment_submit(
        rater=rater,
        assignment_id=assignment.pk,
        client_token="t1",
        values=[*picks, {"criterion": "overall", "position": 1, "value": "neither"}],
    )
    assert not again.created and not again.conflict
    other = judgment_submit(
        rater=rater,
        assignment_id=assignment.pk,
        client_token="t1",
        values=picks[::-1][:1] + [{"criterion": "overall", "position": 1, "value": "best"}],
    )
    assert other.conflict


@pytest.mark.django_db
def test_degraded_copies_are_refused_with_the_reason_and_gold_and_repeats_remain():
    project = _project(UserFactory())
    item_import(project=project, stream=_outputs(8))
    with pytest.raises(ValidationError, match="a screen's picks always sum to zero"):
        degraded_controls_create(project=project, n=2)
    assert not Item.objects.filter(project=project, degraded_from__isnull=False).exists()
    assert len(repeat_controls_create(project=project, n=2)) == 2


@pytest.mark.django_db
def test_revising_a_screen_shows_the_picks_given_and_the_form_posts_them_again(client):
    lead, rater = UserFactory(), UserFactory()
    project = _project(lead)
    item_import(project=project, stream=_outputs(8))
    Membership.objects.create(project=project, user=rater, role=Membership.Role.RATER)
    assignment = assignment_next_for_rater(project_id=project.pk, rater=rater)
    judgment_submit(
        rater=rater,
        assignment_id=assignment.pk,
        values=[
            {"criterion": "overall", "position": 2, "value": "best"},
            {"criterion": "overall", "position": 0, "value": "worst"},
        ],
    )
    criterion = project.criteria.get().pk

    client.force_login(rater)
    page = client.get(f"/assignments/{assignment.pk}/").content.decode()
    assert f'name="v-{criterion}-best" value="3"\n      checked' in page
    assert f'name="v-{criterion}-worst" value="1"\n      checked' in page
    assert page.count("checked") == 2

    # the form's two groups post the picks by their number on screen: a revision, best and worst swapped
    revised = client.post(
        f"/assignments/{assignment.pk}/submit/", {f"v-{criterion}-best": "1", f"v-{criterion}-worst": "3"}
    )
    assert revised.status_code == 302
    current = Judgment.objects.filter(rater=rater, is_current=True)
    shown = assignment.shown_order
    assert {j.output.position: j.label for j in current if j.label != "neither"} == {
        shown[0]: "best",
        shown[2]: "worst",
    }


@pytest.mark.django_db
def test_outputs_to_scale_keep_their_conversation_turns_in_the_drawn_tuples():
    lead = UserFactory()
    project = _project(lead, k=2, tuples_per_output=1)
    chat = [{"role": "system", "text": "Be brief."}, {"role": "user", "text": "Capital of France?"}]
    reply = [{"role": "assistant", "text": "Paris."}, {"role": "user", "text": "Sure?"}]
    lines = [
        {"external_id": f"o{i}", "input": chat, "outputs": [{"system": f"s{i}", "turns": reply}]} for i in range(3)
    ]
    response = client_for(lead).post(
        f"/api/v1/projects/{project.id}/items/import/",
        "".join(json.dumps(line) + "\n" for line in lines).encode(),
        content_type="application/x-ndjson",
    )
    assert response.status_code in (200, 201, 202), response.content
    items = list(Item.objects.filter(project=project).prefetch_related("outputs"))
    assert items and all(item.turns == chat for item in items)
    assert all(o.turns == reply for item in items for o in item.outputs.all())
