"""Joining a project: opening an invite link (sign up or log in, then join), the external-worker
entry and its completion code, and the password change that bulk-created accounts must make first."""

from django.contrib import messages
from django.contrib.auth import login, update_session_auth_hash
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import PasswordChangeForm
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme

from annotation.models import Membership
from annotation.rater_session import AFTER_FINISHED, RETURN_LINK
from annotation.selectors import rater_progress
from annotation.selectors.qualification import rater_not_admitted
from annotation.services.assignment import NOT_ADMITTED
from core.client_address import client_address
from staffing.middleware import MUST_CHANGE
from staffing.models import ExternalLink, ExternalWorker, Invite
from staffing.selectors import completion_standing, invite_get_by_token
from staffing.services import (
    ARCHIVED,
    EntryRefused,
    ExternalLinkInvalid,
    InviteUnavailable,
    external_worker_complete,
    external_worker_enter,
    invite_accept,
    invite_signup,
    invite_state,
    password_change_done,
)

BACKEND = "django.contrib.auth.backends.ModelBackend"
UNAVAILABLE_STATUS = 410
ARCHIVED_STATUS = 409  # not gone: a restore opens the invite again


def _unavailable(request, invite: Invite, state: str):
    return render(
        request,
        "staffing/invite_unavailable.html",
        {"invite": invite, "state": state},
        status=ARCHIVED_STATUS if state == ARCHIVED else UNAVAILABLE_STATUS,
    )


def invite_open(request, token):
    """GET: what the invite offers (a sign-up form for visitors); POST: join, or sign up and join."""
    invite = invite_get_by_token(token)
    state = invite_state(invite, timezone.now())
    if state != Invite.State.OPEN:
        return _unavailable(request, invite, state)
    member = (
        request.user.is_authenticated and Membership.objects.filter(project=invite.project, user=request.user).exists()
    )
    errors, status = {}, 200
    if request.method == "POST":
        try:
            if request.user.is_authenticated:
                membership, _ = invite_accept(token=token, user=request.user)
                if membership.role != Membership.Role.RATER:  # a lead trying their own link
                    return redirect("project-detail", pk=invite.project_id)
            else:
                password = request.POST.get("password", "")
                if password != request.POST.get("password_again", ""):
                    raise ValidationError({"password_again": "the two passwords differ"})
                user = invite_signup(token=token, username=request.POST.get("username", "").strip(), password=password)
                login(request, user, backend=BACKEND)
        except InviteUnavailable as exc:
            return _unavailable(request, exc.invite, exc.state)
        except ValidationError as exc:
            errors, status = exc.message_dict, 400
        else:
            messages.success(request, f"Welcome to {invite.project.name}.")
            return redirect("rate-next", pk=invite.project_id)
    return render(
        request,
        "staffing/invite_open.html",
        {
            "invite": invite,
            "project": invite.project,
            "member": member,
            "errors": errors,
            "username": request.POST.get("username", ""),
            "login_url": f"{reverse('login')}?next={request.path}",
        },
        status=status,
    )


def external_entry(request, pk, token):
    query = request.GET
    try:
        worker = external_worker_enter(
            project_id=pk,
            token=token,
            worker_id=query.get("worker_id", ""),
            prolific_pid=query.get("PROLIFIC_PID", ""),
            study_id=query.get("STUDY_ID", ""),
            session_id=query.get("SESSION_ID", ""),
            signature=query.get("sig", ""),
            address=client_address(request),
        )
    except ExternalLinkInvalid as exc:
        raise Http404(str(exc)) from exc
    except ValidationError as exc:
        return render(
            request, "staffing/external_refused.html", {"errors": exc.messages, "malformed": True}, status=400
        )
    except EntryRefused as exc:
        return render(request, "staffing/external_refused.html", {"errors": [str(exc)]}, status=403)
    login(request, worker.user, backend=BACKEND)  # a new session when it was someone else's
    request.session[AFTER_FINISHED.format(pk)] = reverse("staffing-done", args=[pk])
    return_url = ExternalLink.objects.filter(project_id=pk).values_list("return_url", flat=True).first()
    if return_url:
        request.session[RETURN_LINK.format(pk)] = return_url
    return redirect("rate-next", pk=pk)


@login_required
def worker_done(request, pk):
    """The crowd worker's completion code, once nothing is left for them to judge and they judged enough
    (the link's rule); a polite page without the code otherwise."""
    worker = ExternalWorker.objects.select_related("project").filter(project_id=pk, user=request.user).first()
    if worker is None or not Membership.objects.filter(project_id=pk, user=request.user).exists():
        raise Http404("No such project.")
    if rater_not_admitted(project_id=pk, rater_id=request.user.pk):  # training below the pass mark: no code
        return render(
            request,
            "annotation/rater/not_admitted.html",
            {
                "project": worker.project,
                "message": NOT_ADMITTED,
                "return_link": request.session.get(RETURN_LINK.format(pk), ""),
            },
            status=403,
        )
    progress = rater_progress(project=worker.project, rater=request.user)
    if progress["assigned"] or progress["remaining"]:
        return redirect("rate-next", pk=pk)
    standing = completion_standing(worker)
    if standing.earned:
        worker = external_worker_complete(worker=worker)
    return render(
        request,
        "staffing/done.html",
        {"project": worker.project, "worker": worker, "progress": progress, "standing": standing},
    )


@login_required
def password_change(request):
    form = PasswordChangeForm(request.user, request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        password_change_done(user=user)
        update_session_auth_hash(request, user)
        request.session.pop(MUST_CHANGE, None)
        messages.success(request, "Your password is changed.")
        after = request.GET.get("next", "")
        safe = url_has_allowed_host_and_scheme(after, allowed_hosts={request.get_host()})
        return redirect(after if after and safe else "home")
    return render(
        request,
        "staffing/password_change.html",
        {"form": form, "next": request.GET.get("next", "")},
        status=400 if request.method == "POST" else 200,
    )
