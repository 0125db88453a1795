"""The lead's page for the rater profile form: the consent text and one row per field, fixed once the study
has started."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render

from annotation.models import ProfileField
from annotation.selectors import project_get_for_lead
from annotation.selectors.profiles import profile_form
from annotation.services.profiles import MAX_FIELDS, profile_form_check, profile_form_set

SPARE_ROWS = 3


def _posted_fields(post) -> list[dict]:
    """The rows with a name, as the API takes fields (choices one per comma)."""
    fields = []
    for k in range(MAX_FIELDS):
        name = post.get(f"name-{k}", "").strip()
        if not name:
            continue
        choices = [c.strip() for c in post.get(f"choices-{k}", "").split(",") if c.strip()]
        fields.append(
            {
                "name": name,
                "kind": post.get(f"kind-{k}", ""),
                "choices": choices,
                "required": post.get(f"required-{k}") == "on",
                "sensitive": post.get(f"sensitive-{k}") == "on",
            }
        )
    return fields


@login_required
def profile_form_page(request, pk):
    project = project_get_for_lead(request.user, pk)
    form = profile_form(project)
    errors, status = [], 200
    if request.method == "POST":
        form = {
            "consent": request.POST.get("consent", ""),
            "fields": _posted_fields(request.POST),
            "started": form["started"],
        }
        try:
            consent, fields = profile_form_check(form["consent"], form["fields"])
            profile_form_set(project=project, consent=consent, fields=fields, by=request.user)
        except ValidationError as exc:
            errors, status = [f"{k}: {m}" for k, ms in exc.message_dict.items() for m in ms], 400
        else:
            messages.success(request, f"Profile form saved: {len(fields)} field{'s' if len(fields) != 1 else ''}.")
            return redirect("profile-form", pk=project.pk)
    rows = [{**f, "choices": ", ".join(f["choices"])} for f in form["fields"]]
    rows += [{"name": "", "kind": "", "choices": "", "required": False, "sensitive": False}] * min(
        SPARE_ROWS, MAX_FIELDS - len(rows)
    )
    return render(
        request,
        "annotation/profile_form.html",
        {
            "project": project,
            "consent": form["consent"],
            "rows": rows,
            "started": form["started"],
            "errors": errors,
            "kinds": ProfileField.Kind.values,
        },
        status=status,
    )
