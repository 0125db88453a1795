"""The lead's progress page (the numbers are embedded, and refreshed from the progress summary API)."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from annotation.selectors import project_get_for_lead
from console.selectors.progress import ETA_WINDOW, progress_summary


@login_required
def progress_page(request, pk):
    project = project_get_for_lead(request.user, pk)
    summary = progress_summary(project)
    return render(
        request,
        "console/progress.html",
        {
            "project": project,
            "summary": summary,
            "eta_window_days": ETA_WINDOW.days,
            "chart_data": [
                {"day": row.day.isoformat(), "judgments": row.judgments, "screens": row.screens}
                for row in summary.per_day
            ],
        },
    )
