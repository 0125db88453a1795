"""The lead's item pages: upload (with a progress bar, or a plain form post without JavaScript), re-upload in
"update existing items" mode, the item browser, and an item's detail (addressable by its external id) with
its retire and replace-text actions."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from annotation.forms import ImportForm
from annotation.models import Item
from annotation.selectors import project_get_for_lead
from annotation.services import item_import
from annotation.services.item_changes import item_retire, item_text_replace, item_unretire
from console.selectors.import_errors import import_error_report
from console.selectors.items_browser import STATUS_LABELS, ItemFilters, item_browser_page, item_detail_for_lead
from console.services.item_upload import UPDATE_KIND, item_upload_start
from core.import_records import ImportRejected, detect_format
from core.job_apis import JobSerializer
from core.models import Job
from core.parsers import ImportTooLarge, spool


def _wants_json(request) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def _upload_json(request, project, form):
    """The page's script: start the import job and answer its status as ``/api/v1/jobs/{id}/`` does, with its
    address (202), or say what is wrong with the upload."""
    if not form.is_valid():
        return JsonResponse({"detail": "Choose a file to upload.", "errors": []}, status=400)
    try:
        job = item_upload_start(project=project, upload=form.cleaned_data["file"], created_by=request.user)
    except ImportTooLarge as exc:
        return JsonResponse({"detail": str(exc.detail), "errors": []}, status=413)
    return JsonResponse(
        {
            **JobSerializer(job).data,
            "job_url": reverse("api-job", args=[job.pk]),
            "items_url": reverse("console-items", args=[project.pk]),
        },
        status=202,
    )


@login_required
@require_http_methods(["GET", "POST"])
def item_upload(request, pk):
    project = project_get_for_lead(request.user, pk)
    if request.method == "GET":
        return render(request, "console/item_upload.html", {"project": project, "form": ImportForm()})
    form = ImportForm(request.POST, request.FILES)
    if _wants_json(request):
        return _upload_json(request, project, form)
    context, status = {"project": project, "form": form}, 400
    if form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            with spool(upload) as stream:
                n = item_import(
                    project=project,
                    stream=stream,
                    fmt=detect_format(upload.name, upload.content_type),
                    by=request.user,
                    file_name=upload.name,
                )
        except ImportRejected as exc:
            context["import_errors"] = import_error_report(exc.report.as_dict())
        except ImportTooLarge as exc:
            context["import_errors"], status = {"detail": str(exc.detail), "errors": []}, 413
        else:
            messages.success(request, f"Imported {n} items.")
            return redirect("console-items", pk=project.pk)
    return render(request, "console/item_upload.html", context, status=status)


@login_required
def item_browser(request, pk):
    project = project_get_for_lead(request.user, pk)
    params = request.GET
    status = params.get("status", "")
    filters = ItemFilters(
        search=params.get("q", "").strip(),
        subgroup=params.get("subgroup", ""),
        system=params.get("system", ""),
        status=status if status in STATUS_LABELS else "",
    )
    browser = item_browser_page(project, filters, page=params.get("page", 1))
    query = params.copy()
    query.pop("page", None)
    return render(
        request,
        "console/item_browser.html",
        {
            "project": project,
            "filters": filters,
            "statuses": STATUS_LABELS,
            "query": query.urlencode(),
            "status_counts": [(key, label, browser["counts"][key]) for key, label in STATUS_LABELS.items()],
            **browser,
        },
    )


@login_required
@require_http_methods(["POST"])
def item_update_upload(request, pk):
    """The upload page's second form: a re-upload that adds new items and rewrites unjudged changed ones, run as
    a job (a large file takes longer than a request should); the job's page says what happened to each line."""
    project = project_get_for_lead(request.user, pk)
    form = ImportForm(request.POST, request.FILES)
    context, status = {"project": project, "form": ImportForm(), "update_form": form}, 400
    if form.is_valid():
        try:
            job = item_upload_start(
                project=project, upload=form.cleaned_data["file"], created_by=request.user, update=True
            )
        except ImportTooLarge as exc:
            context["import_errors"], status = {"detail": str(exc.detail), "errors": []}, 413
        else:
            return redirect("console-item-update-job", pk=project.pk, job_id=job.pk)
    return render(request, "console/item_upload.html", context, status=status)


@login_required
def item_update_job(request, pk, job_id):
    """The update job's progress (the page reloads itself until the job ends), then what changed, or why the
    file was refused."""
    project = project_get_for_lead(request.user, pk)
    job = get_object_or_404(Job, pk=job_id, project=project, kind=UPDATE_KIND)
    context = {"project": project, "form": ImportForm(), "update_form": ImportForm(), "update_job": job}
    if job.state == Job.State.SUCCESS:
        context["update_report"] = job.result
    elif job.state == Job.State.FAILURE:
        context["import_errors"] = job.result if job.result.get("errors") else {"detail": job.error, "errors": []}
    return render(request, "console/item_upload.html", context)


def _item_page(request, project, external_id: str, *, status=200, errors=None):
    return render(
        request,
        "console/item_detail.html",
        {"project": project, "errors": errors or {}, **item_detail_for_lead(project, external_id)},
        status=status,
    )


@login_required
def item_detail(request, pk, item_pk):
    project = project_get_for_lead(request.user, pk)
    item = get_object_or_404(Item.objects.filter(project=project).only("external_id"), pk=item_pk)
    return redirect("console-item", pk=project.pk, external_id=item.external_id)


@login_required
def item_detail_by_external_id(request, pk, external_id):
    project = project_get_for_lead(request.user, pk)
    return _item_page(request, project, external_id)


@login_required
@require_http_methods(["POST"])
def item_retire_toggle(request, pk, item_pk):
    """Retires the item, or with ``serve_again`` serves a retired item again."""
    project = project_get_for_lead(request.user, pk)
    item = get_object_or_404(Item, project=project, pk=item_pk)
    again = request.POST.get("serve_again") == "1"
    try:
        (item_unretire if again else item_retire)(project=project, item=item, by=request.user)
    except ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    else:
        messages.success(
            request,
            f"Item {item.external_id} is served again."
            if again
            else f"Item {item.external_id} is retired: no rater is served it any more; its judgments stay.",
        )
    return redirect("console-item", pk=project.pk, external_id=item.external_id)


@login_required
@require_http_methods(["POST"])
def item_replace(request, pk, item_pk):
    project = project_get_for_lead(request.user, pk)
    item = get_object_or_404(Item, project=project, pk=item_pk)
    n_outputs = item.outputs.count()
    try:
        changed = item_text_replace(
            project=project,
            item=item,
            input=request.POST.get("input", ""),
            by=request.user,
            output_texts=[request.POST.get(f"output_{k}", "") for k in range(n_outputs)],
        )
    except ValidationError as exc:
        return _item_page(request, project, item.external_id, status=400, errors=exc.message_dict)
    messages.success(
        request,
        f"Replaced the {' and '.join(changed)} of item {item.external_id}."
        if changed
        else f"Item {item.external_id} already had this text; nothing changed.",
    )
    return redirect("console-item", pk=project.pk, external_id=item.external_id)
