"""The files a project's metrics read beside the outputs (training corpus, word vectors), uploaded
by a lead: checked whole before anything is stored, then written beside and renamed into place."""

import os
from pathlib import Path

from django.conf import settings
from django.db import transaction

from annotation.models import Project
from audit.services import audit_record
from evaluation.metrics.dialog_inputs import training_corpus_parse, word_vectors_parse
from evaluation.models import MetricInput

KINDS = tuple(MetricInput.Kind.values)


def metric_input_path(project: Project, kind: str) -> Path:
    return Path(settings.MEDIA_ROOT) / "metric_inputs" / f"project-{project.id}" / f"{kind}.txt"


def _summary(kind: str, data: bytes) -> dict:
    """What the file holds (InputFileError, a ValueError naming the line, when it is not readable)."""
    if kind == MetricInput.Kind.TRAINING_CORPUS:
        corpus = training_corpus_parse(data)
        return {"lines": corpus.n_lines, "words": len(corpus.unigram)}
    vectors = word_vectors_parse(data)
    return {"vectors": len(vectors.index), "dimension": int(vectors.matrix.shape[1])}


def metric_input_upload(*, project: Project, kind: str, data: bytes, file_name: str = "", by=None) -> MetricInput:
    """Store ``data`` as the project's ``kind`` file, replacing an earlier one; a file that cannot
    be read is refused (ValueError naming the line) and the earlier one stays."""
    if kind not in KINDS:
        raise ValueError(f"unknown metric input {kind!r}; give one of {', '.join(KINDS)}")
    summary = _summary(kind, data)
    final = metric_input_path(project, kind)
    final.parent.mkdir(parents=True, exist_ok=True)
    partial = final.with_suffix(".part")
    partial.write_bytes(data)
    with transaction.atomic():
        row, _ = MetricInput.objects.update_or_create(
            project=project,
            kind=kind,
            defaults={
                "file": str(final.relative_to(settings.MEDIA_ROOT)),
                "original_name": file_name[:255],
                "size_bytes": len(data),
                "summary": summary,
                "uploaded_by": by,
            },
        )
        audit_record(
            actor=by,
            action="metrics.input_upload",
            project=project,
            target=kind,
            detail={"file_name": file_name, **summary},
        )
        os.replace(partial, final)
    return row


def metric_input_files(project: Project) -> dict[str, Path]:
    """``{kind: path}`` of the project's uploaded files that are on disk."""
    return {
        row.kind: path
        for row in MetricInput.objects.filter(project=project)
        if (path := Path(settings.MEDIA_ROOT) / row.file).is_file()
    }
