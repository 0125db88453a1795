"""The rater's profile page: the project's consent text and profile form, answered before the first screen."""

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render

from annotation.selectors.profiles import profile_fields, rater_profile_of
from annotation.services import RaterRefused, rater_membership_check
from annotation.services.profiles import profile_answer
from annotation.views_rater import _refused


@login_required
def rater_profile(request, pk):
    try:
        membership = rater_membership_check(project_id=pk, rater=request.user)
    except RaterRefused as refusal:
        return _refused(request, refusal)
    fields = profile_fields(membership.project)
    errors, status, given = [], 200, (rater_profile_of(membership) or {}).get("answers", {})
    if request.method == "POST":
        answers = {f.name: request.POST.get(f"p-{k}", "") for k, f in enumerate(fields)}
        consent = request.POST.get("consent")
        try:
            if consent not in ("yes", "no"):
                raise ValidationError({"consent": "say whether you agree"})
            profile = profile_answer(project_id=pk, rater=request.user, consent=consent == "yes", answers=answers)
        except RaterRefused as refusal:
            return _refused(request, refusal, membership.project)
        except ValidationError as exc:
            errors, status, given = (
                [f"{k.removeprefix('answers.')}: {m}" for k, ms in exc.message_dict.items() for m in ms],
                400,
                answers,
            )
        else:
            return (
                redirect("rate-next", pk=pk)
                if profile.consented
                else render(request, "annotation/rater/profile_declined.html", {"project": membership.project})
            )
    return render(
        request,
        "annotation/rater/profile.html",
        {
            "project": membership.project,
            "errors": errors,
            "fields": [{"field": f, "input": f"p-{k}", "value": given.get(f.name, "")} for k, f in enumerate(fields)],
        },
        status=status,
    )
