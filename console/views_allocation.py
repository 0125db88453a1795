"""The lead's allocation page: quotas, the design a study will follow (shown before it starts) and each
rater's own quota."""

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render

from annotation.selectors import project_get_for_lead
from annotation.selectors.allocation import allocation_design_preview, rater_quota_list
from annotation.services.adaptive_allocation import adaptive_config_update
from annotation.services.allocation import allocation_rater_quota_set, allocation_settings_update
from annotation.task_types import REGISTRY
from console.forms import AdaptiveForm, AllocationForm, RaterQuotaForm


def _page(request, project, form, *, status=200, error="", adaptive=None):
    overrides = {}
    if form.is_bound and form.is_valid():  # a preview of what the form would save
        overrides = {k: v for k, v in form.cleaned_data.items() if k != "replan_excluded_judgments"}
    preview = allocation_design_preview(project, **overrides)
    design = preview.design
    computable = {(a, b) for a, b, _ in design.computable_pairs}
    pairs = [{"a": a + 1, "b": b + 1, "n": n, "computable": (a, b) in computable} for a, b, n in design.pairs]
    return render(
        request,
        "console/allocation.html",
        {
            "project": project,
            "form": form,
            "preview": preview,
            "error": error,
            "places": [
                {"n": p + 1, "screens": screens, "holder": preview.holders[p] if p < len(preview.holders) else ""}
                for p, screens in enumerate(design.per_place)
            ],
            "pairs": pairs,
            "overlapping": [p for p in pairs if p["n"]],
            "n_computable": len(computable),
            "raters": rater_quota_list(project),
            "adaptive": (adaptive or AdaptiveForm.for_project(project))
            if "adaptive" in REGISTRY[project.task_type].live_config_fields
            else None,
        },
        status=status,
    )


@login_required
def allocation_page(request, pk):
    project = project_get_for_lead(request.user, pk)
    if request.method != "POST":
        return _page(request, project, AllocationForm.for_project(project))
    if request.POST.get("action") == "rater":
        return _rater_quota(request, project)
    if request.POST.get("action") == "adaptive":
        return _adaptive(request, project)
    form = AllocationForm.for_project(project, request.POST)
    if not form.is_valid():
        return _page(request, project, form, status=400)
    if request.POST.get("action") == "preview":
        return _page(request, project, form)
    try:
        allocation_settings_update(project=project, by=request.user, **form.cleaned_data)
    except ValidationError as exc:
        for field, errors in exc.error_dict.items():
            form.add_error(field if field in form.fields else None, errors)
        return _page(request, project, form, status=400)
    messages.success(request, "Allocation saved; the items are planned for the new design.")
    return redirect("console-allocation", pk=project.pk)


def _rater_quota(request, project):
    quota = RaterQuotaForm(request.POST)
    rater = None
    if quota.is_valid():
        rater = get_user_model().objects.filter(pk=quota.cleaned_data["rater"], memberships__project=project).first()
    if rater is None:
        return _page(
            request,
            project,
            AllocationForm.for_project(project),
            status=400,
            error="That is not a rater of this project, or a quota is not a whole number of at least 1.",
        )
    try:
        allocation_rater_quota_set(
            project=project,
            rater=rater,
            by=request.user,
            max_screens=quota.cleaned_data["max_screens"],
            expected_screens=quota.cleaned_data["expected_screens"],
        )
    except ValidationError as exc:
        return _page(request, project, AllocationForm.for_project(project), status=400, error=" ".join(exc.messages))
    messages.success(request, f"{rater.username}: own quota saved.")
    return redirect("console-allocation", pk=project.pk)


def _adaptive(request, project):
    form = AdaptiveForm.for_project(project, request.POST)
    if "adaptive" not in REGISTRY[project.task_type].live_config_fields:
        return _page(
            request,
            project,
            AllocationForm.for_project(project),
            status=400,
            error="This project does not allocate its screens adaptively.",
        )
    if form.is_valid():
        try:
            adaptive_config_update(project=project, changes=form.changes(), by=request.user)
        except ValidationError as exc:
            form.add_error(None, " ".join(exc.messages))
        else:
            messages.success(request, "Adaptive allocation saved.")
            return redirect("console-allocation", pk=project.pk)
    return _page(request, project, AllocationForm.for_project(project), status=400, adaptive=form)
