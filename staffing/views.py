"""The lead's staffing pages: the team (pause, resume, remove), invite links, bulk accounts and the
external-worker link."""

import csv
import io

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from annotation.models import Membership
from annotation.selectors import project_get_for_lead
from annotation.services import membership_set, rater_pause, rater_resume
from staffing.forms import ExternalLinkForm
from staffing.models import ExternalLink, Invite
from staffing.selectors import (
    invite_email_counts,
    invite_get_for_project,
    invite_list_for_project,
    team_list_for_project,
)
from staffing.services import (
    MAX_ACCOUNTS,
    BulkRejected,
    accounts_bulk_create,
    entry_signature,
    external_link_configure,
    external_link_disable,
    external_link_new_secret,
    external_link_reset,
    invite_create,
    invite_email_queue,
    invite_revoke,
    team_rater_remove,
)

# Quality control's own services: they log the RaterAction and the audit entry.
TEAM_ACTIONS = {"pause": rater_pause, "resume": rater_resume}


def _external_urls(request, link) -> dict:
    """The link as a crowd platform takes it: Prolific fills in {{%PROLIFIC_PID%}}; others add worker_id."""
    if link is None or not link.is_enabled:
        return {}
    base = request.build_absolute_uri(reverse("staffing-external-entry", args=[link.project_id, link.token]))
    return {
        "prolific": base + "?PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}",
        "other": base + "?worker_id=",
    }


@login_required
def team_page(request, pk, *, status=200, error=None):
    project = project_get_for_lead(request.user, pk)
    link = ExternalLink.objects.filter(project=project).first()
    return render(
        request,
        "staffing/team.html",
        {
            "project": project,
            "members": team_list_for_project(project),
            "error": error,
            "external_urls": _external_urls(request, link),
            "invite_emails": settings.CONCORD_INVITE_EMAILS,
            "invite_email_counts": invite_email_counts(project),
        },
        status=status,
    )


@login_required
@require_POST
def team_action(request, pk):
    project = project_get_for_lead(request.user, pk)
    action = request.POST.get("action", "")
    rater_id = request.POST.get("rater", "")
    rater = (
        get_user_model()
        .objects.filter(
            pk=rater_id if rater_id.isdigit() else None,
            memberships__project=project,
            memberships__role=Membership.Role.RATER,
        )
        .first()
    )
    if action not in (*TEAM_ACTIONS, "remove"):
        return team_page(request, pk, status=400, error=f"Unknown action {action!r}: choose pause, resume or remove.")
    if rater is None:
        return team_page(request, pk, status=400, error="That is not a rater of this project.")
    try:
        if action == "remove":
            release = team_rater_remove(project=project, rater=rater, by=request.user)
            messages.success(request, f"{rater.username} removed from the project. {release.message}")
        else:
            TEAM_ACTIONS[action](project=project, rater=rater, by=request.user, reason=request.POST.get("reason", ""))
            messages.success(request, f"{rater.username}: {action} done.")
    except ValidationError as exc:
        return team_page(request, pk, status=400, error=" ".join(exc.messages))
    return redirect("staffing-team", pk=project.pk)


@login_required
@require_POST
def team_add(request, pk):
    """Adds a user who already has an account to the team, as a rater or a lead, by username."""
    project = project_get_for_lead(request.user, pk)
    username, role = request.POST.get("username", "").strip(), request.POST.get("role", Membership.Role.RATER)
    if not username:
        return team_page(request, pk, status=400, error="Give the username of the account to add.")
    try:
        membership = membership_set(project=project, username=username, role=role, by=request.user)
    except ValidationError as exc:
        return team_page(request, pk, status=400, error=" ".join(exc.messages))
    messages.success(request, f"{membership.user.username} is on the team as a {membership.role}.")
    return redirect("staffing-team", pk=project.pk)


def _number(raw: str, kind):
    try:
        return kind(raw)
    except (TypeError, ValueError):
        return raw


@login_required
def invites_page(request, pk):
    project = project_get_for_lead(request.user, pk)
    errors, status = {}, 200
    if request.method == "POST":
        multi = request.POST.get("kind") == "multi"
        try:
            invite = invite_create(
                project=project,
                by=request.user,
                max_uses=_number(request.POST.get("max_uses", ""), int) if multi else 1,
                valid_days=_number(request.POST.get("valid_days", ""), float),
            )
        except ValidationError as exc:
            errors, status = exc.message_dict, 400
        else:
            messages.success(
                request, f"Invite created: it admits {invite.max_uses} rater{'s' if invite.max_uses != 1 else ''}."
            )
            return redirect("staffing-invites", pk=project.pk)
    invites = list(invite_list_for_project(project).prefetch_related("emails"))
    now = timezone.now()
    for invite in invites:
        invite.state = invite.state_at(now)
        invite.state_label = Invite.State(invite.state).label
        invite.url = _invite_url(request, invite)
    return render(
        request,
        "staffing/invites.html",
        {
            "project": project,
            "invites": invites,
            "errors": errors,
            "form": request.POST,
            "invite_emails": settings.CONCORD_INVITE_EMAILS,
        },
        status=status,
    )


@login_required
@require_POST
def invite_revoke_view(request, pk, invite_id):
    project = project_get_for_lead(request.user, pk)
    invite = invite_revoke(invite=invite_get_for_project(project, invite_id), by=request.user)
    messages.success(request, f"Invite {invite.pk} revoked: its link no longer admits anyone.")
    return redirect("staffing-invites", pk=project.pk)


def _invite_url(request, invite) -> str:
    return request.build_absolute_uri(reverse("staffing-invite-open", args=[invite.token]))


@login_required
@require_POST
def invite_email_view(request, pk, invite_id):
    project = project_get_for_lead(request.user, pk)
    invite = invite_get_for_project(project, invite_id)
    to = request.POST.get("email", "").strip()
    try:
        invite_email_queue(invite=invite, to=to, url=_invite_url(request, invite), by=request.user)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(request, f"Invite {invite.pk} is being emailed to {to}: its row below says when it went out.")
    return redirect("staffing-invites", pk=project.pk)


@login_required
def accounts_page(request, pk):
    project = project_get_for_lead(request.user, pk)
    if request.method != "POST":
        return render(request, "staffing/accounts.html", {"project": project, "max_accounts": MAX_ACCOUNTS})
    upload = request.FILES.get("file")
    if upload is None:
        return render(
            request,
            "staffing/accounts.html",
            {"project": project, "max_accounts": MAX_ACCOUNTS, "errors": [(0, "choose a CSV file to upload")]},
            status=400,
        )
    try:
        credentials = accounts_bulk_create(project=project, stream=upload, by=request.user)
    except BulkRejected as exc:
        return render(
            request,
            "staffing/accounts.html",
            {"project": project, "max_accounts": MAX_ACCOUNTS, "errors": exc.errors},
            status=400,
        )
    login_url = request.build_absolute_uri(reverse("login"))
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["username", "email", "password", "login_url"])
    for c in credentials:
        writer.writerow([c.username, c.email, c.password, login_url])
    response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="project-{project.pk}-credentials.csv"'
    response["Cache-Control"] = "no-store"
    return response


@login_required
def external_page(request, pk):
    """The crowd link: on, reset or off, and the lead's guards on it and its completion rule."""
    project = project_get_for_lead(request.user, pk)
    action, error, status = request.POST.get("action"), None, 200
    link = ExternalLink.objects.filter(project=project).first()
    form = ExternalLinkForm.for_link(link) if link is not None else None
    if request.method == "POST":
        if action == "disable":
            external_link_disable(project=project, by=request.user)
            messages.success(request, "The external-worker link is off: it admits no one now (its settings are kept).")
            return redirect("staffing-external", pk=project.pk)
        if action == "reset":
            external_link_reset(project=project, by=request.user)
            messages.success(request, "A new external-worker link is ready; any older link stopped working.")
            return redirect("staffing-external", pk=project.pk)
        if action == "new-secret":
            try:
                external_link_new_secret(project=project, by=request.user)
            except ValidationError as exc:
                error, status = " ".join(exc.messages), 400
            else:
                messages.success(request, "A new signing secret is set: entries signed with the old one are refused.")
                return redirect("staffing-external", pk=project.pk)
        elif action == "settings" and link is not None:
            form = ExternalLinkForm.for_link(link, request.POST)
            if form.is_valid():
                try:
                    external_link_configure(project=project, by=request.user, **form.settings())
                except ValidationError as exc:
                    for field, errors in exc.message_dict.items():
                        form.add_error(field if field in form.fields else None, errors)
                else:
                    messages.success(request, "The link's settings are saved.")
                    return redirect("staffing-external", pk=project.pk)
            status = 400
        else:
            error, status = f"Unknown action {action!r}: choose reset, disable, settings or new-secret.", 400
    return render(
        request,
        "staffing/external.html",
        {
            "project": project,
            "link": link,
            "form": form,
            "external_urls": _external_urls(request, link),
            "error": error,
            "example_signature": entry_signature(link.signing_secret, "WORKER42")
            if link and link.signing_secret
            else "",
        },
        status=status,
    )
