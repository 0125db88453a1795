"""Issue 14, point 1: nothing a rater observes tells a control screen from a work screen.

A careless rater works through a whole session (about a third of it gold checks, repeats and degraded
copies) through the real API and pages, and every signal they could read is recorded per screen: progress
(endpoint and page text) before and after, the screen's position in the session, the ids served, every
response's headers and fields in their order, the page's markup with the item texts left out, and the
statements the server ran for the screen (a stand-in for its timing). Two screens in three are answered on
the page's form instead of the API, as rate.js answers them: one asking for the next screen inline
(``X-Concord-Next: inline``), so the next page is the submit's own response; the other with the screen after
it leased ahead (rate.js asks ``/rate/ahead/`` for it while the rater works, and the answer sent behind it
brings the screen after that, ``X-Concord-Next: ahead``). Each page is recorded with the response that
delivered it (a page load, an inline answer, the screen ahead, an answer's screen ahead), its headers and its
statements, for the screen it shows: a dishonest rater can compare those too. Then for each signal a
two-sample test of control against work screens, and a cross-validated classifier on all of them together,
must do no better than chance. Seeded throughout, so the outcome is the same on every run.
"""

import json
import random
import re

import numpy as np
import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils.html import escape
from scipy.stats import chi2_contingency, mannwhitneyu
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.tree import DecisionTreeClassifier

import annotation.services.assignment as assignment_service
from annotation.conversations import turns_from_json, turns_text
from annotation.models import Assignment, Judgment, Output
from annotation.services import degraded_controls_create, qc_rules_update
from annotation.services.controls import repeat_controls_create
from tests.annotation.factories import ItemFactory
from tests.annotation.rating import add_raters, rating_project
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

N_WORK, N_GOLD, N_REPEATS, N_DEGRADED = 70, 20, 15, 8


def _skeleton(html: str, screen: dict) -> str:
    """A page less what differs by item anyway: the texts judged, and numbers and tokens (ids, counts,
    times), which are signals of their own."""
    texts = [screen["item"]["input"], *screen["item"]["references"], *(o["text"] for o in screen["item"]["outputs"])]
    texts += [turn["text"] for o in screen["item"]["outputs"] for turn in o.get("turns") or ()]
    for text in sorted(texts, key=len, reverse=True):
        html = html.replace(str(escape(text)), "<text>")
    html = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', 'name="csrfmiddlewaretoken"', html)
    return re.sub(r"[0-9a-f]{32}|\d+", "#", html)


def _keys(value) -> str:
    """The fields of a JSON response in their order, nested."""
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{_keys(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(sorted({_keys(v) for v in value})) + "]"
    return type(value).__name__


def _headers(response) -> str:
    """A response's status and headers in their order, numbers and tokens left out (lengths, times, ids)."""
    shown = [f"{name}: {value}" for name, value in response.items()]
    return re.sub(r"[0-9a-f]{32}|\d+", "#", "|".join([str(response.status_code), *shown, *response.cookies]))


def _form(screen: dict, values: list[dict], page: str) -> dict:
    """The page's form filled in with ``values`` (field ``v-<criterion id>-<position>``)."""
    ids = {c["name"]: c["id"] for c in screen["criteria"]}
    token = re.search(r'name="client_token" value="([^"]*)"', page).group(1)
    return {
        "client_token": token,
        **{
            f"v-{ids[v['criterion']]}-{v['position']}" + (f"-t{v['turn']}" if "turn" in v else ""): json.dumps(
                v["value"]
            )
            if isinstance(v["value"], dict)
            else str(v["value"])
            for v in values
        },
    }


def _progress(client, project) -> dict:
    return client.get(f"/api/v1/projects/{project.pk}/progress/").json()


def _page_progress(html: str) -> tuple[int, ...]:
    match = re.search(r'data-testid="done">(\d+)</strong> of (\d+) done', html)
    return tuple(int(g) for g in match.groups())


def _likert_answer(rng: random.Random):
    return rng.randint(1, 5)


def _esa_answer(rng: random.Random):
    """Some error spans on the output's first characters, or none, and a score."""
    n = rng.randint(0, 2)
    spans = [{"start": k, "end": k + rng.randint(1, 3), "severity": rng.choice(["minor", "major"])} for k in range(n)]
    return {"spans": spans, "no_error": not spans, "score": rng.randint(0, 100)}


# Per study (a task type; "likert-turns": Likert rating each assistant turn of conversation outputs): the systems of
# an item, a gold answer for the k-th gold item, and a careless answer.
STUDIES = {
    "likert": (["sysA", "sysB"], lambda k: {"fluency": {"sysA": 1 + k % 5, "sysB": 1 + k % 3}}, _likert_answer),
    "esa": (["sysA"], lambda k: {"fluency": {"sysA": {"spans": [{"start": 0, "end": 1 + k % 3}]}}}, _esa_answer),
    "likert-turns": (
        ["sysA", "sysB"],
        lambda k: {"fluency": {"sysA": {"0": 1 + k % 5, "2": 1 + k % 2}, "sysB": 1 + k % 3}},
        _likert_answer,
    ),
}


def _conversations(project) -> None:
    """Every output of the project made a conversation with assistant turns 0 and 2."""
    for output in Output.objects.filter(item__project=project):
        turns = [
            {"role": "assistant", "text": output.text},
            {"role": "user", "text": f"Why {output.item.external_id}?"},
            {"role": "assistant", "text": f"Because {output.text} says so."},
        ]
        output.turns, output.text = turns, turns_text(turns_from_json(turns))
        output.save(update_fields=["turns", "text"])


def _session(monkeypatch, study):
    """A careless rater's whole session; returns (signals per screen, control or not per screen)."""
    systems, gold, answer = STUDIES[study]
    task_type, per_turn = study.split("-")[0], study.endswith("-turns")
    # Seeded: the sweeps and display orders; each screen's draw, keyed as in production but by fixed ids
    # (the database's ids differ from run to run); and the database's random(), which picks among controls.
    screen_rng = assignment_service._screen_rng
    monkeypatch.setattr(assignment_service, "_rng", random.Random(11))
    monkeypatch.setattr(assignment_service, "_screen_rng", lambda _project, _rater, screen: screen_rng(1, 1, screen))
    project = rating_project(
        task_type=task_type,
        n_items=N_WORK,
        systems=systems,
        gold_rate=0.15,
        repeat_rate=0.1,
        rating_unit="turn" if per_turn else "conversation",
    )
    for k in range(N_GOLD):
        ItemFactory(project=project, n_target=0, gold=gold(k), systems=systems)
    if per_turn:
        _conversations(project)
    degraded_controls_create(project=project, n=N_DEGRADED, seed=1)
    repeat_controls_create(project=project, n=N_REPEATS, seed=2)
    qc_rules_update(
        project=project,
        min_gold_answered=3,
        gold_accuracy_threshold=0.8,
        action="warn",
        min_seconds_per_judgment=1,
        straight_line_run=50,
    )
    (rater,) = add_raters(project)
    api, pages = client_for(rater), Client()
    pages.force_login(rater)
    pages.get(f"/projects/{project.pk}/instructions/")
    answers = random.Random(5)

    # pages delivered ahead of their screen: row index -> (response, statements run, how it came)
    rows, is_control, previous_id, delivered = [], [], None, {}
    while True:
        before = _progress(api, project)
        with CaptureQueriesContext(connection) as next_queries:
            served = api.post(f"/api/v1/projects/{project.pk}/next/")
        if served.status_code == 204:
            break
        screen = served.json()
        mode = ("api", "inline", "ahead")[len(rows) % 3]
        if len(rows) not in delivered:
            with CaptureQueriesContext(connection) as load_queries:
                loaded = pages.get(f"/projects/{project.pk}/rate/")
            delivered[len(rows)] = (loaded, len(load_queries), "load")
        page, page_queries, page_source = delivered.pop(len(rows))
        html = page.content.decode()
        assert f'action="/assignments/{screen["assignment_id"]}/submit/"' in html  # the page shows the screen served
        if mode == "ahead":  # rate.js asks for the screen after this one as the page comes up
            with CaptureQueriesContext(connection) as ahead_queries:
                held = pages.post(f"/projects/{project.pk}/rate/ahead/")
            if held.status_code == 200:
                delivered[len(rows) + 1] = (held, len(ahead_queries), "ahead")
        values = [
            {"criterion": c["name"], "position": o["position"], "value": answer(answers)}
            | ({"turn": turn} if turn is not None else {})
            for c in screen["criteria"]
            for o in screen["item"]["outputs"]
            for turn in o.get("rated_turns", [None])
        ]
        duration = answers.randint(800, 9000)
        with CaptureQueriesContext(connection) as submit_queries:
            if mode == "api":
                submitted = api.post(
                    f"/api/v1/assignments/{screen['assignment_id']}/judgment/",
                    {"values": values, "duration_ms": duration},
                    format="json",
                )
            else:
                submitted = pages.post(
                    f"/assignments/{screen['assignment_id']}/submit/",
                    {**_form(screen, values, html), "duration_ms": duration},
                    HTTP_X_CONCORD_NEXT=mode,
                )
        after = _progress(api, project)
        # an answer sent behind the screen ahead: the screen after that, or 204 when none is left
        assert submitted.status_code in {"api": (201,), "inline": (200,), "ahead": (200, 204)}[mode]
        if mode == "inline":
            delivered[len(rows) + 1] = (submitted, len(submit_queries), "inline")
        elif mode == "ahead" and submitted.status_code == 200:
            assert submitted["X-Concord-Screen"] == "ahead"
            delivered[len(rows) + 2] = (submitted, len(submit_queries), "answer-ahead")
        shown = _page_progress(html)
        rows.append(
            {
                "position": len(rows),
                "done": before["done"],
                "left": before["remaining"],
                "total": before["total"],
                "done_change": after["done"] - before["done"],
                # leased or to come: a submit on the form leases the next screen before "after" is read
                "left_change": after["remaining"] + after["assigned"] - before["remaining"] - before["assigned"],
                "total_change": after["total"] - before["total"],
                "page_done": shown[0],
                "page_total": shown[1],
                "page_total_change": shown[1] - before["total"],
                "id_step": screen["assignment_id"] - (previous_id or screen["assignment_id"]),
                "next_status": served.status_code,
                "next_headers": _headers(served),
                "next_fields": _keys(screen),
                "n_outputs": len(screen["item"]["outputs"]),
                "next_queries": len(next_queries),
                "page": _skeleton(html, screen),
                "page_source": page_source,
                "page_status": page.status_code,
                "page_headers": _headers(page),
                "page_queries": page_queries,
                "submit_status": submitted.status_code,
                "submit_headers": _headers(submitted),
                "submit_fields": "page" if mode != "api" else _keys(submitted.json()),
                "submit_queries": len(submit_queries),
                "revision": 0 if mode != "api" else submitted.json()["revision"],
            }
        )
        previous_id = screen["assignment_id"]
        served_as = Assignment.objects.get(pk=screen["assignment_id"]).served_as
        is_control.append(served_as != Assignment.ServedAs.WORK)
    return rows, np.array(is_control)


def _coded(rows: list[dict], name: str) -> np.ndarray:
    """A signal as numbers: itself when numeric, else the index of its value among those seen."""
    values = [row[name] for row in rows]
    if all(isinstance(v, int | float) for v in values):
        return np.array(values, dtype=float)
    levels = sorted(set(map(str, values)))
    return np.array([levels.index(str(v)) for v in values], dtype=float)


def _two_sample_p(values: np.ndarray, is_control: np.ndarray) -> float:
    """Mann–Whitney U for a numeric signal; a chi-squared test of the contingency table for one with few
    values (and 1 when the signal takes a single value, which separates nothing)."""
    levels = np.unique(values)
    if len(levels) == 1:
        return 1.0
    if len(levels) <= 5:
        table = np.array([[np.sum((values == v) & is_control), np.sum((values == v) & ~is_control)] for v in levels])
        return float(chi2_contingency(table).pvalue)
    return float(mannwhitneyu(values[is_control], values[~is_control]).pvalue)


@pytest.fixture
def seeded_database_random():
    """PostgreSQL's random() seeded; SQLite's RANDOM() takes no seed, so a seeded one stands in for it."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT setseed(0.25)")
            yield
            return
    seeded = random.Random(25)
    connection.connection.create_function("RANDOM", 0, lambda: seeded.randint(-(2**63), 2**63 - 1))
    yield
    connection.connection.create_function("RANDOM", 0, None)  # SQLite's own again


@pytest.mark.parametrize("study", list(STUDIES))
def test_no_observable_tells_a_control_screen_from_a_work_screen(monkeypatch, seeded_database_random, study):
    rows, is_control = _session(monkeypatch, study)

    # The session is whole: every work item, and about a third control screens of every kind
    assert len(rows) >= N_WORK + N_DEGRADED
    assert 0.25 <= is_control.mean() <= 0.4
    served = set(Assignment.objects.values_list("served_as", flat=True))
    assert served == {"work", "gold", "repeat", "degraded"}
    # and its pages came every way rate.js gets them, the screens leased ahead included
    assert {row["page_source"] for row in rows} == {"load", "inline", "ahead", "answer-ahead"}
    if study.endswith("-turns"):  # every answer was a turn's, and the degraded copies are conversations too
        assert not Judgment.objects.filter(turn__isnull=True).exists()
        assert Output.objects.filter(item__degraded_from__isnull=False, turns__isnull=False).exists()

    # Per signal, a two-sample test of controls against work (Bonferroni over the signals)
    names = list(rows[0])
    p_values = {name: _two_sample_p(_coded(rows, name), is_control) for name in names}
    alpha = 0.01 / len(names)
    assert {name: p for name, p in p_values.items() if p < alpha} == {}
    # what is left (leased or to come) drops by one on every screen, control or not, and the page
    # ("12 of 40 done") says what the endpoint says
    assert {row["left_change"] for row in rows} == {-1} and {row["page_total_change"] for row in rows} == {0}
    assert all(row["page_done"] == row["done"] for row in rows)

    # All signals together: a small tree, cross-validated, is no better than always guessing "work"
    features = np.column_stack([_coded(rows, name) for name in names])
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
    accuracy = cross_val_score(
        DecisionTreeClassifier(max_depth=3, random_state=0), features, is_control, cv=folds
    ).mean()
    base = max(is_control.mean(), 1 - is_control.mean())
    noise = 3 * np.sqrt(base * (1 - base) / len(rows))
    assert accuracy <= base + noise, (accuracy, base, noise)
