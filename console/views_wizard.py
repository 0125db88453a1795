"""The lead console's set-up pages: the new-project wizard, a project's settings, the live preview of
the rater's screen, the lifecycle buttons and cloning.

Every page answers 404 to outsiders (the project's existence stays hidden) and 403 to the project's
raters; creating or cloning a project also needs the right to create projects (as the API).
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_POST

from annotation.models import Project
from annotation.selectors import project_create_allowed, project_get_for_lead
from annotation.services import project_create
from annotation.services.project import criteria_normalise
from annotation.task_types import REGISTRY
from annotation.templatetags.markdown_render import markdown_to_html
from console.forms import CRITERION_DEFAULTS, DEFAULT_TASK_TYPE, CriterionForm, CriterionFormSet, ProjectSettingsForm
from console.selectors import preview_items, preview_screen_context, project_has_started
from console.services import project_clone, project_settings_update, project_status_set

PREFIX = "criteria"
# A preview rater: the top bar shows a rater's name, never the lead's.
PREVIEW_USER = {"is_authenticated": True, "username": "rater", "is_staff": False}


def _creator(request) -> None:
    if not project_create_allowed(request.user):
        raise PermissionDenied


def _bound(data):
    return ProjectSettingsForm(data), CriterionFormSet(data, prefix=PREFIX)


def _unbound(project: Project | None):
    form = ProjectSettingsForm(initial=ProjectSettingsForm.initial_for(project))
    if project is None:
        specs = [dict(CRITERION_DEFAULTS[DEFAULT_TASK_TYPE])]
    else:
        specs = [
            {
                "id": c.pk,
                "name": c.name,
                "scale_min": c.scale_min,
                "scale_max": c.scale_max,
                "labels": c.labels,
                "help_text": c.help_text,
            }
            for c in project.criteria.all()
        ]
    initial = [{**CriterionForm.initial_from(s), "ORDER": n + 1} for n, s in enumerate(specs)]
    return form, CriterionFormSet(initial=initial, prefix=PREFIX)


def _with_one_more_row(data):
    """The POSTed form with one more, empty criterion row (the "Add a criterion" button without JS)."""
    data = data.copy()
    total = data.get(f"{PREFIX}-TOTAL_FORMS", "")
    total = int(total) if total.isdigit() else 0
    data[f"{PREFIX}-TOTAL_FORMS"] = str(total + 1)
    return data


def _preview(request, project: Project | None, form, formset) -> dict:
    """The live preview from whatever parses in the form: the rater's screen (a whole page, for an
    iframe), the rendered instructions, the items one can pick, and why some criteria are left out."""
    data = ProjectSettingsForm.initial_for(project)
    if form.is_bound:
        form.is_valid()
        # An emptied optional setting (the modulus) is a value; an emptied required one keeps the saved value.
        nullable = {field.name for field in Project._meta.fields if field.null}
        data.update({k: v for k, v in form.cleaned_data.items() if v is not None or k in nullable})
    task_type = data["task_type"] if data["task_type"] in REGISTRY else DEFAULT_TASK_TYPE
    preview_project = Project(
        pk=None if project is None else project.pk,
        name=data.get("name") or "New project",
        task_type=task_type,
        instructions=data["instructions"] or "",
        show_reference=data["show_reference"],
        randomise_output_order=data["randomise_output_order"],
        rankme_modulus=data["rankme_modulus"] if REGISTRY[task_type].takes_modulus else None,
        lease_seconds=round(data["lease_minutes"] * 60),
    )
    notes, criteria = [], []
    for spec in formset.lenient_specs():
        if spec["name"] in {c["name"] for c in criteria}:
            notes.append(f"criterion {spec['name']!r} is named twice: the preview shows it once")
            continue
        try:
            criteria += criteria_normalise(task_type=task_type, criteria=[spec])
        except ValidationError as exc:
            notes += exc.messages
    items = preview_items(project, task_type)
    choice = request.POST.get("preview_item", "0") if request.method == "POST" else "0"
    index = int(choice) if choice.isdigit() and int(choice) < len(items) else 0
    context = preview_screen_context(project=preview_project, criteria=criteria, item=items[index])
    context.update(user=PREVIEW_USER, messages=[], csrf_token="preview")
    return {
        "screen": render_to_string(REGISTRY[task_type].template_name, context),
        "instructions": markdown_to_html(preview_project.instructions),
        "items": [item["label"] for item in items],
        "item": index,
        "notes": notes,
    }


def _page(request, *, project, form, formset, errors=(), status=200):
    started = project is not None and project_has_started(project)
    return render(
        request,
        "console/project_form.html",
        {
            "project": project,
            "form": form,
            "formset": formset,
            "criteria_errors": list(errors),
            "preview": _preview(request, project, form, formset),
            "started": started,
            "defaults": CRITERION_DEFAULTS,
            "task_types": [(t.slug, t.label) for t in REGISTRY.values()],
            "hints": [(slug, t.setup.hint) for slug, t in REGISTRY.items()],
            "scaleless": [slug for slug, t in REGISTRY.items() if not t.setup.has_scale],
        },
        status=status,
    )


def _submitted(request, project: Project | None):
    """Handles a POST of the settings form: another row, a preview refresh, or a save."""
    action = request.POST.get("action", "save")
    data = _with_one_more_row(request.POST) if action == "add-criterion" else request.POST
    form, formset = _bound(data)
    if action != "save":
        return _page(request, project=project, form=form, formset=formset)
    valid = form.is_valid() & formset.is_valid()
    if not valid:
        # The criteria's own rules too, so every error shows at once, not the next one after each fix.
        if formset.is_valid() and "task_type" in form.cleaned_data:
            try:
                criteria_normalise(task_type=form.cleaned_data["task_type"], criteria=formset.specs())
            except ValidationError as exc:
                errors = formset.add_service_errors(exc.error_dict.get("criteria", []))
                return _page(request, project=project, form=form, formset=formset, errors=errors, status=400)
        return _page(request, project=project, form=form, formset=formset, status=400)
    try:
        if project is None:
            saved = project_create(
                created_by=request.user, criteria=formset.specs(), status=Project.Status.DRAFT, **form.settings()
            )
        else:
            saved = project_settings_update(
                project=project, actor=request.user, settings=form.settings(), criteria=formset.specs()
            )
    except ValidationError as exc:
        errors = []
        for field, field_errors in exc.error_dict.items():
            if field == "criteria":
                errors += formset.add_service_errors(field_errors)
            elif field in form.fields:
                form.add_error(field, field_errors)
            else:
                form.add_error("lease_minutes" if field == "lease_seconds" else None, field_errors)
        return _page(request, project=project, form=form, formset=formset, errors=errors, status=400)
    if project is None:
        messages.success(
            request, f"Draft project “{saved.name}” created. Import its items, check the preview, then make it live."
        )
    else:
        messages.success(request, "Settings saved.")
    return redirect("project-detail", pk=saved.pk)


@login_required
def project_new(request):
    _creator(request)
    if request.method == "POST":
        return _submitted(request, None)
    form, formset = _unbound(None)
    return _page(request, project=None, form=form, formset=formset)


@login_required
def project_settings(request, pk):
    project = project_get_for_lead(request.user, pk)
    if request.method == "POST":
        return _submitted(request, project)
    form, formset = _unbound(project)
    return _page(request, project=project, form=form, formset=formset)


def _preview_response(request, project):
    form, formset = _bound(request.POST)
    return JsonResponse(_preview(request, project, form, formset))


@login_required
@require_POST
def project_new_preview(request):
    _creator(request)
    return _preview_response(request, None)


@login_required
@require_POST
def project_preview(request, pk):
    return _preview_response(request, project_get_for_lead(request.user, pk))


@login_required
def project_try(request, pk):
    """The lead tries the project as its raters will: the real screens of its first items, one after another,
    with every check of the rating page; what is submitted is read for the next screen's number only and
    never stored (no assignment, no judgment)."""
    project = project_get_for_lead(request.user, pk)
    items = preview_items(project, project.task_type)
    raw = request.POST.get("try_next", "") if request.method == "POST" else request.GET.get("n", "0")
    n = int(raw) if raw.isdigit() else 0
    if n >= len(items):
        return render(request, "console/project_try_end.html", {"project": project, "n_items": len(items)})
    criteria = [
        {
            "name": c.name,
            "scale_min": c.scale_min,
            "scale_max": c.scale_max,
            "labels": list(c.labels or []),
            "help_text": c.help_text,
        }
        for c in project.criteria.all()
    ]
    context = preview_screen_context(project=project, criteria=criteria, item=items[n])
    context.update(
        trying={"n": n + 1, "of": len(items), "next": n + 1},
        progress={"done": n, "assigned": 1, "remaining": len(items) - n - 1, "total": len(items)},
    )
    return render(request, REGISTRY[project.task_type].template_name, context)


@login_required
@require_POST
def project_status(request, pk):
    project = project_get_for_lead(request.user, pk)
    try:
        project = project_status_set(project=project, status=request.POST.get("status", ""), actor=request.user)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(request, f"The project is {project.get_status_display().lower()} now.")
    return redirect("project-detail", pk=project.pk)


@login_required
def project_clone_page(request, pk):
    project = project_get_for_lead(request.user, pk)
    _creator(request)
    name = f"{project.name} (round 2)"
    error, status = None, 200
    if request.method == "POST":
        name = request.POST.get("name", "").strip()
        try:
            clone = project_clone(
                project=project, actor=request.user, name=name, with_items=request.POST.get("with_items") == "on"
            )
        except ValidationError as exc:
            error, status = " ".join(exc.messages), 400
        else:
            messages.success(request, f"Draft project “{clone.name}” created from “{project.name}”.")
            return redirect("project-detail", pk=clone.pk)
    return render(
        request,
        "console/project_clone.html",
        {"project": project, "name": name, "error": error, "n_items": project.items.count()},
        status=status,
    )
