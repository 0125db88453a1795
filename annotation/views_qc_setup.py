"""The lead's quality-control set-up pages: the rules (each saved edit a new version once judging has
started, with the history) and the controls (training and its qualification gate, gold and repeat rates,
degraded and repeat copies)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render

from annotation.forms import ControlSettingsForm, DegradedControlsForm, QcRulesForm, RepeatControlsForm
from annotation.selectors import project_get_for_lead, qc_rules_current, qc_rules_defaults
from annotation.selectors.quality_control_setup import control_pools, qc_rules_history
from annotation.selectors.quality_text import rules_sentences
from annotation.services import qc_rules_apply_all, qc_rules_update
from annotation.services.controls import (
    METHODS,
    degraded_controls_create,
    project_controls_update,
    repeat_controls_create,
)


def _form_errors(form, exc: ValidationError, fields: dict[str, str] | None = None) -> None:
    """The service's errors beside the form's fields (``fields`` maps service names to form names)."""
    for name, errors in exc.message_dict.items():
        name = (fields or {}).get(name, name)
        form.add_error(name if name in form.fields else None, errors)


@login_required
def qc_rules_page(request, pk):
    project = project_get_for_lead(request.user, pk)
    current = qc_rules_current(project)
    form = QcRulesForm(request.POST or None, initial=QcRulesForm.initial_for(current or qc_rules_defaults(project)))
    status = 200
    if request.POST.get("action") == "apply":
        taken = qc_rules_apply_all(project=project, by=request.user)
        messages.success(
            request,
            f"The rules were applied to every rater: {len(taken)} action"
            f"{'' if len(taken) == 1 else 's'} taken (see the action log).",
        )
        return redirect("qc-rules", pk=project.pk)
    if request.method == "POST":
        if form.is_valid():
            try:
                rules = qc_rules_update(project=project, by=request.user, **form.rules())
            except ValidationError as exc:
                _form_errors(
                    form,
                    exc,
                    {"gold_accuracy_threshold": "gold_accuracy_percent", "control_flag_share": "control_flag_percent"},
                )
            else:
                same = current is not None and rules.pk == current.pk and rules.version == current.version
                messages.success(
                    request,
                    f"Rules version {rules.version} is in force"
                    + (" (edited in place: nobody has judged yet)." if same else "."),
                )
                return redirect("qc-rules", pk=project.pk)
        status = 400
    return render(
        request,
        "annotation/qc_rules.html",
        {
            "project": project,
            "form": form,
            "current": current,
            "current_text": rules_sentences(current) if current else None,
            "history": qc_rules_history(project),
        },
        status=status,
    )


@login_required
def qc_controls_page(request, pk):
    project = project_get_for_lead(request.user, pk)
    action = request.POST.get("action") if request.method == "POST" else None
    forms = {
        "settings": ControlSettingsForm(initial=ControlSettingsForm.initial_for(project)),
        "degraded": DegradedControlsForm(prefix="degraded", initial={"seed": 0, "methods": list(METHODS)}),
        "repeats": RepeatControlsForm(prefix="repeats", initial={"seed": 0}),
    }
    status = 200
    if action in forms:
        form = forms[action] = type(forms[action])(request.POST, prefix=forms[action].prefix)
        if form.is_valid():
            try:
                if action == "settings":
                    project_controls_update(project=project, by=request.user, **form.settings())
                    done = "The control settings are saved."
                elif action == "degraded":
                    copies = degraded_controls_create(
                        project=project,
                        by=request.user,
                        n=form.cleaned_data["n"],
                        seed=form.cleaned_data["seed"],
                        methods=form.cleaned_data["methods"],
                    )
                    done = f"{len(copies)} degraded cop{'y' if len(copies) == 1 else 'ies'} added."
                else:
                    copies = repeat_controls_create(
                        project=project, by=request.user, n=form.cleaned_data["n"], seed=form.cleaned_data["seed"]
                    )
                    done = f"{len(copies)} repeat cop{'y' if len(copies) == 1 else 'ies'} added."
            except ValidationError as exc:
                _form_errors(
                    form,
                    exc,
                    {
                        "training_pass_mark": "training_pass_mark_percent",
                        "gold_rate": "gold_rate_percent",
                        "repeat_rate": "repeat_rate_percent",
                    },
                )
            else:
                messages.success(request, done)
                return redirect("qc-controls", pk=project.pk)
        status = 400
    elif request.method == "POST":
        messages.error(request, f"Unknown action {action!r}: choose settings, degraded or repeats.")
        status = 400
    return render(
        request,
        "annotation/qc_controls.html",
        {"project": project, "pools": control_pools(project), **{f"{name}_form": f for name, f in forms.items()}},
        status=status,
    )
