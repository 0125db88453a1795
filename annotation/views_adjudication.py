"""Adjudication pages: the lead's rule and queue counts, and the adjudicator's screen (one queued item at a time,
the raters' answers unnamed)."""

import math

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from annotation.conversations import turn_labels
from annotation.models import AdjudicationCase, Project
from annotation.selectors import project_get_for_lead, screen_questions
from annotation.selectors.adjudication import adjudication_screen, adjudication_summary
from annotation.selectors.rater_loop import criteria_of
from annotation.services import RaterRefused
from annotation.services.adjudication import (
    adjudication_next,
    adjudication_rule_check,
    adjudication_rule_set,
    adjudication_submit,
)
from annotation.task_types import REGISTRY
from annotation.views_rater import screen_form_values


def _threshold(raw: str):
    """The form's threshold: empty is None; anything else must read as a finite number."""
    raw = raw.strip()
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        raise ValidationError({"threshold": f"must be a number, got {raw[:40]!r}"}) from None
    if not math.isfinite(value):
        raise ValidationError({"threshold": f"must be a finite number, got {raw[:40]!r}"})
    return value


@login_required
def adjudication_page(request, pk):
    project = project_get_for_lead(request.user, pk)
    errors, status = [], 200
    if request.method == "POST":
        try:
            rule = request.POST.get("rule", "")
            if rule not in ("on", "off"):
                raise ValidationError({"rule": "choose whether the rule is on or off"})
            threshold = _threshold(request.POST.get("threshold", ""))
            queued = adjudication_rule_set(
                project=project,
                by=request.user,
                rule=adjudication_rule_check(project, enabled=rule == "on", threshold=threshold),
            )
        except ValidationError as exc:
            errors, status = [f"{k}: {m}" for k, ms in exc.message_dict.items() for m in ms], 400
        else:
            messages.success(request, f"Rule saved; {queued} more item{'s' if queued != 1 else ''} queued.")
            return redirect("adjudication", pk=project.pk)
    summary, values = adjudication_summary(project), REGISTRY[project.task_type].values
    return render(
        request,
        "annotation/adjudication_rule.html",
        {
            "project": project,
            "summary": summary,
            "rule_words": values.rule_words(summary.threshold),
            "values": values,
            "takes_threshold": values.takes_threshold,
            "posted": request.POST if errors else None,
        },
        status=status,
    )


def _refused(request, refusal: RaterRefused):
    return render(request, "annotation/rater/refused.html", {"message": refusal.message}, status=refusal.status_code)


def _screen(request, case, *, answers=None, errors=None, status=200):
    screen = adjudication_screen(case)
    for output in screen["item"]["outputs"]:
        output["letter"] = chr(ord("A") + output["position"])
    questions = screen_questions(
        screen=screen, task_type=REGISTRY[case.project.task_type], answers=answers, config=case.project.task_config
    )
    for q in questions["questions"]:  # in a project rating per turn, a question names its turn as the raters saw it
        if q["turn"] is not None:
            q["turn_label"] = turn_labels(q["output"]["turns"])[q["turn"]]
    # one row per rater, a cell per question, in the form's order
    rows = []
    for answer in screen["answers"]:
        given = {(v["criterion"], v["position"], v.get("turn")): v["shown"] for v in answer["values"]}
        rows.append(
            {
                "answer": answer["answer"],
                "cells": [
                    given.get(
                        (q["criterion"]["name"], q["output"]["position"] if q["output"] else None, q["turn"]), "—"
                    )
                    for q in questions["questions"]
                ],
            }
        )
    return render(
        request,
        "annotation/adjudication_screen.html",
        {
            "project": case.project,
            "case": case,
            "screen": screen,
            "errors": errors or [],
            "answer_rows": rows,
            **questions,
        },
        status=status,
    )


@login_required
def adjudicate_next(request, pk):
    try:
        case = adjudication_next(project_id=pk, adjudicator=request.user)
    except RaterRefused as refusal:
        return _refused(request, refusal)
    if case is None:
        return render(request, "annotation/adjudication_done.html", {"project": Project.objects.get(pk=pk)})
    return _screen(request, case)


def _form_values(post, project) -> list[dict]:
    criteria = {str(c.pk): c.name for c in criteria_of(project.pk)}
    return screen_form_values(post, REGISTRY[project.task_type], criteria)


@login_required
@require_POST
def adjudicate_submit(request, pk):
    case = AdjudicationCase.objects.select_related("project", "item").filter(pk=pk).first()
    if case is None:
        raise Http404("No such adjudication case.")
    try:
        adjudication_submit(adjudicator=request.user, case_id=case.pk, values=_form_values(request.POST, case.project))
    except RaterRefused as refusal:
        return _refused(request, refusal)
    except ValidationError as exc:
        return _screen(
            request,
            case,
            answers={k[2:]: v for k, v in request.POST.items() if k.startswith("v-")},
            errors=[m for ms in exc.message_dict.values() for m in ms],
            status=400,
        )
    messages.success(request, "Adjudicated answer saved.")
    return redirect("adjudicate-next", pk=case.project_id)
