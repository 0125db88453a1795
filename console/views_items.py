"""The lead's item pages: upload (with a progress bar, or a plain form post without JavaScript), the item
browser and an item's detail."""
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from annotation.forms import ImportForm
from annotation.job_apis import JobSerializer
from annotation.parsers import ImportTooLarge, spool
from annotation.selectors import project_get_for_lead
from annotation.services import ImportRejected, detect_format, item_import
from console.selectors.import_errors import import_error_report
from console.selectors.items_browser import STATUS_LABELS, ItemFilters, item_browser_page, item_detail_for_lead
from console.services.item_upload import item_upload_start


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
    return JsonResponse({**JobSerializer(job).data, "job_url": reverse("api-job", args=[job.pk]),
                         "items_url": reverse("console-items", args=[project.pk])}, status=202)


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
                n = item_import(project=project, stream=stream, fmt=detect_format(upload.name, upload.content_type),
                                by=request.user, file_name=upload.name)
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
    filters = ItemFilters(search=params.get("q", "").strip(), subgroup=params.get("subgroup", ""),
                          system=params.get("system", ""), status=status if status in STATUS_LABELS else "")
    browser = item_browser_page(project, filters, page=params.get("page", 1))
    query = params.copy()
    query.pop("page", None)
    return render(request, "console/item_browser.html", {
        "project": project, "filters": filters, "statuses": STATUS_LABELS, "query": query.urlencode(),
        "status_counts": [(key, label, browser["counts"][key]) for key, label in STATUS_LABELS.items()], **browser})


@login_required
def item_detail(request, pk, item_pk):
    project = project_get_for_lead(request.user, pk)
    return render(request, "console/item_detail.html", {"project": project, **item_detail_for_lead(project, item_pk)})
