"""Dataset export of a project: a zip with items, judgments, per-output scores and raters (JSONL, CSV,
Parquet), a README.md data card with Hugging Face metadata, a HEDS 3.0 datasheet and the agreement
trend chart. Rows stream from the database to the files batch by batch; the zip is assembled at the
end from the finished files, so memory stays flat whatever the project's size."""

import hashlib
import json
import os
import re
import shutil
import tempfile
import zipfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from django.conf import settings
from django.db import connection, connections, transaction
from django.utils import timezone

from annotation.models import Criterion, Project
from annotation.selectors.profiles import profile_fields, rater_profile_answers
from annotation.task_types import REGISTRY
from audit.services import audit_record
from core.job_queue import queued_job
from core.models import Job
from core.outside_text import text_problem
from core.services.job import job_start
from evaluation.export import card as card_builder
from evaluation.export import heds as heds_builder
from evaluation.export import profiles, soft_labels
from evaluation.export.card_facts import (
    AboutFacts,
    AgreementFacts,
    CardCounts,
    CardFacts,
    ColumnFacts,
    CriterionFacts,
    FileFacts,
    OptionFacts,
    ProfileFieldFacts,
    ProjectFacts,
    QcFacts,
    RaterProfileFacts,
    SoftLabelFacts,
    SoftLabelFile,
    SystemMean,
    SystemTally,
    card_json,
)
from evaluation.export.tables import RATERS, VOTES, has_spans, judgments_table, scores_table, spans_table
from evaluation.export.writers import FORMATS, TableSpec, WrittenFile
from evaluation.models import Export, VoteImport
from evaluation.selectors.export import (
    NO_SUBGROUP,
    ExportScope,
    ExportSizes,
    agreement_for_card,
    card_counts,
    criteria_for_card,
    export_scope,
    export_sizes,
    label_distributions,
    max_outputs_per_item,
    qc_for_card,
    snapshots_computed_at,
    system_summary,
)
from evaluation.selectors.soft_labels import soft_label_units

from .export_tables import TableOptions, export_table_names, split_names, table_write
from .rater_models import criterion_categories, is_categorical

EXPORT_KIND = "export"
EXPORT_JOB = "evaluation.export_run"
SPLITS = ("all", "subgroup")
LICENSE_PATTERN = re.compile(r"^[a-z0-9][a-z0-9.+-]{0,63}$")
LANGUAGE_PATTERN = re.compile(r"^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$")
TASK_CATEGORY_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
# Deflate level of the text files (JSONL, CSV): level 1 is ~3x faster than the default 6 on this
# data and the zip ~15% larger; Parquet (zstd inside) and PNG are stored as they are.
DEFLATE_LEVEL = 1
STORED = {".parquet", ".png"}


class ExportOptionsError(ValueError):
    """Bad export options; ``errors`` maps each bad option to what is wrong with it."""

    def __init__(self, errors: dict[str, str]):
        self.errors = errors
        super().__init__("; ".join(f"{name}: {message}" for name, message in errors.items()))


# What the lead tells the data card that the platform cannot know (field: its heading on the export page).
ABOUT_FIELDS = {
    "summary": "Summary",
    "motivation": "Motivation",
    "authors": "Authors",
    "contact": "Contact",
    "citation": "Citation (BibTeX or plain text)",
    "recruitment": "How raters were recruited",
    "compensation": "How raters were paid",
    "consent": "Consent and ethics review",
    "intended_uses": "Intended uses",
    "limitations": "Limitations",
}
ABOUT_MAX_CHARS = 5000


@dataclass(frozen=True)
class ExportOptions:
    """What the lead chose. Usernames appear only with ``include_usernames``; emails never do."""

    formats: tuple[str, ...] = FORMATS
    split: str = "all"
    include_usernames: bool = False
    include_excluded: bool = False
    recompute_agreement: bool = False
    license: str = "unknown"
    languages: tuple[str, ...] = ()
    task_categories: tuple[str, ...] = ("text-generation",)
    pretty_name: str = ""
    # CSV text that a spreadsheet would run as a formula (= + - @ tab CR first) gets a leading ' unless this.
    csv_raw_text: bool = False
    # lewidi/<criterion>_train.json: every answer and the soft label per unit (evaluation.export.soft_labels)
    soft_labels: bool = False
    # the rater profile fields the lead marked sensitive, in data/rater_profiles.jsonl (evaluation.export.profiles)
    include_sensitive_profile: bool = False
    summary: str = ""
    motivation: str = ""
    authors: str = ""
    contact: str = ""
    citation: str = ""
    recruitment: str = ""
    compensation: str = ""
    consent: str = ""
    intended_uses: str = ""
    limitations: str = ""

    def errors(self) -> dict[str, str]:
        errors = {}
        unknown = [f for f in self.formats if f not in FORMATS]
        if not self.formats or unknown:
            errors["formats"] = f"choose one or more of {', '.join(FORMATS)}" + (
                f"; unknown: {', '.join(map(str, unknown))}" if unknown else ""
            )
        elif len(set(self.formats)) != len(self.formats):
            errors["formats"] = "a format is listed twice"
        elif "parquet" in self.formats and not parquet_available():
            errors["formats"] = "parquet needs the pyarrow package, which is not installed here"
        if self.split not in SPLITS:
            errors["split"] = f"split must be one of {', '.join(SPLITS)}"
        if not isinstance(self.license, str) or not LICENSE_PATTERN.match(self.license):
            errors["license"] = "a Hugging Face license id, e.g. cc-by-4.0, apache-2.0, other or unknown"
        bad = [x for x in self.languages if not isinstance(x, str) or not LANGUAGE_PATTERN.match(x)]
        if bad:
            errors["languages"] = f"ISO 639-1/639-3 codes such as en or deu; bad: {', '.join(map(str, bad))}"
        bad = [x for x in self.task_categories if not isinstance(x, str) or not TASK_CATEGORY_PATTERN.match(x)]
        if bad or not self.task_categories:
            errors["task_categories"] = "Hugging Face task ids such as text-generation or summarization"
        if len(self.pretty_name) > 200:
            errors["pretty_name"] = "at most 200 characters"
        for name in ("csv_raw_text", "soft_labels", "include_sensitive_profile"):
            if not isinstance(getattr(self, name), bool):
                errors[name] = "true or false"
        for name in ABOUT_FIELDS:
            value = getattr(self, name)
            problem = (
                "must be text"
                if not isinstance(value, str)
                else f"at most {ABOUT_MAX_CHARS} characters"
                if len(value) > ABOUT_MAX_CHARS
                else text_problem(value)
            )
            if problem:
                errors[name] = problem
        return errors

    def checked(self) -> "ExportOptions":
        errors = self.errors()
        if errors:
            raise ExportOptionsError(errors)
        # a canonical order, so equal choices give equal exports
        return replace(self, formats=tuple(f for f in FORMATS if f in self.formats))

    @classmethod
    def from_dict(cls, data: dict) -> "ExportOptions":
        known = {f for f in cls.__dataclass_fields__}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ExportOptionsError({name: "unknown option" for name in unknown})
        values = dict(data)
        for name in ("formats", "languages", "task_categories"):
            if name in values:
                values[name] = tuple(values[name])
        return cls(**values)


def parquet_available() -> bool:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


@dataclass
class ExportProgress:
    """Maps the phases of an export onto one 0–1 scale for a Job's progress bar or tqdm."""

    report: Callable[[float, float, str], None] | None
    start: float = 0.0
    width: float = 1.0
    done: int = 0
    total: int = 1

    def phase(self, start: float, width: float, total: int) -> None:
        self.start, self.width, self.done, self.total = start, width, 0, max(total, 1)

    def advance(self, n: int, message: str) -> None:
        self.done += n
        self.tell(self.start + self.width * min(1.0, self.done / self.total), message)

    def tell(self, share: float, message: str) -> None:
        if self.report:
            self.report(round(share * 1000), 1000, message)


def export_write(
    *,
    project: Project,
    options: ExportOptions,
    destination: Path,
    progress: Callable[[float, float, str], None] | None = None,
    by=None,
) -> dict:
    """Writes the export zip of ``project`` to ``destination`` (created or replaced) and returns what
    it holds. Reads agreement from the stored snapshots, computing them first when there are none or
    ``recompute_agreement`` asks for it, so the card's figures are the dashboard's. An export written
    for ``by`` (a command) is recorded in the audit log once the zip is complete; a job's export was
    recorded when it was started."""
    options = options.checked()
    report = ExportProgress(progress)
    recompute = export_agreement_ready(project=project, options=options, report=report)
    rows_start = 0.3 if recompute else 0.0
    scope = export_options_scope(project, options)
    # The card's aggregates are read on a second connection while the rows are written, when the
    # export runs outside a transaction (a job, the command): the database works on them while this
    # thread formats rows. Inside a transaction (tests, a request) a second connection would not see
    # uncommitted rows, so they are read here, after the rows.
    sizes = export_sizes(scope)
    card_readings = _in_background(lambda: export_card_readings(project, scope, sizes))
    tables = export_table_options(scope, options=options, sizes=sizes)
    destination = Path(destination)
    destination.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".export-", dir=destination.parent))
    try:
        report.phase(rows_start, 0.95 - rows_start, sizes.n_judgments + sizes.n_items)
        files = [
            file
            for name in tables.tables
            for file in table_write(
                name, scope=scope, options=tables, work=work, raters=lambda: sizes.raters, advance=report.advance
            )
        ]
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return export_zip_write(
        project=project,
        options=options,
        scope=scope,
        card_readings=card_readings,
        files=files,
        item_spec=tables.item_spec,
        work=work,
        destination=destination,
        recompute=recompute,
        by=by,
        report=report,
    )


def export_agreement_ready(*, project: Project, options: ExportOptions, report: ExportProgress) -> bool:
    """Computes the project's agreement snapshots (the first 30% of the progress) when there are none or the
    options ask for it, so the card's figures are the dashboard's; returns whether it did."""
    from agreement.models import AgreementSnapshot
    from agreement.services import snapshot_compute_for_project

    recompute = options.recompute_agreement or not AgreementSnapshot.objects.filter(project=project).exists()
    if recompute:
        report.phase(0.0, 0.3, 1)
        snapshot_compute_for_project(
            project_id=project.id,
            progress=lambda done, total: report.tell(0.3 * done / max(total, 1), "computing agreement"),
        )
    return recompute


def export_options_scope(project: Project, options: ExportOptions) -> ExportScope:
    """What an export of ``project`` with ``options`` covers, from now on (see ExportScope)."""
    return export_scope(
        project,
        include_usernames=options.include_usernames,
        include_excluded=options.include_excluded,
        by_subgroup=options.split == "subgroup",
    )


def export_table_options(scope: ExportScope, *, options: ExportOptions, sizes: ExportSizes) -> TableOptions:
    """How the tables of an export of ``scope`` are written, and which there are."""
    project = scope.project
    return TableOptions(
        formats=options.formats,
        csv_raw_text=options.csv_raw_text,
        include_usernames=options.include_usernames,
        split_names=split_names(list(sizes.items_by_subgroup)) if scope.by_subgroup else {NO_SUBGROUP: "train"},
        csv_outputs=max_outputs_per_item(scope),
        tables=export_table_names(project.task_type, with_votes=VoteImport.objects.filter(project=project).exists()),
    )


def export_zip_write(
    *,
    project: Project,
    options: ExportOptions,
    scope: ExportScope,
    card_readings: Callable[[], "CardReadings"],
    files: list[WrittenFile],
    item_spec: TableSpec,
    work: Path,
    destination: Path,
    recompute: bool,
    by=None,
    report: ExportProgress,
) -> dict:
    """Writes the data card, the datasheet and the zip of the tables' ``files`` (in ``work``, which goes
    whatever happens) to ``destination`` and returns what it holds (see export_write)."""
    try:
        report.tell(0.95, "writing the data card")
        readings = card_readings()
        chart = _trend_chart(readings.agreement)
        soft_label_files, soft_label_facts = _soft_label_files(scope, options) if options.soft_labels else ({}, None)
        profile_files, profile_facts = _profile_files(scope, options)
        facts = _facts(
            project,
            options,
            readings,
            files,
            item_spec,
            adjudicated=scope.adjudication,
            chart=card_builder.CHART_NAME if chart else None,
            soft_labels=soft_label_facts,
            rater_profiles=profile_facts,
        )
        readme = card_builder.render(facts) + soft_labels.card_text(facts) + profiles.card_text(facts)
        heds = heds_builder.build(facts)
        manifest = {
            "generator": "Concord dataset export",
            "project_id": project.id,
            "generated_at": timezone.now().isoformat(),
            "options": asdict(options),
            "agreement_recomputed": recompute,
            "snapshots_computed_at": readings.snapshots_computed_at,
            "files": [],
        }
        extra = soft_label_files | profile_files
        _zip(destination, work, files, readme, heds, card_json(facts), chart, manifest, extra)
        if by is not None:
            audit_record(
                actor=by,
                action="export.create",
                project=project,
                target=destination.name,
                detail={
                    "file": str(destination),
                    "options": asdict(options),
                    "n_judgments": facts.counts.n_judgments,
                },
            )
        report.tell(1.0, "done")
        return {
            "n_judgments": facts.counts.n_judgments,
            "agreement_recomputed": recompute,
            "files": manifest["files"],
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _trend_chart(agreement: AgreementFacts) -> bytes | None:
    """The agreement trend's PNG; None without a trend (or without matplotlib)."""
    if not agreement.trend or agreement.main_statistic_label is None:
        return None
    from evaluation.export.chart import trend_png

    return trend_png(agreement.trend, statistic=agreement.main_statistic_label)


def _soft_label_files(scope, options: ExportOptions) -> tuple[dict[str, str], SoftLabelFacts]:
    """The LeWiDi files of the categorical criteria (none for sliders), and the card's facts about them."""
    task_type = scope.project.task_type
    criteria = list(Criterion.objects.filter(project=scope.project).order_by("position", "id"))
    names = soft_labels.file_names([c.name for c in criteria]) if is_categorical(task_type) else {}
    lang = options.languages[0] if len(options.languages) == 1 else ""
    files, out = [], {}
    for criterion in criteria if names else []:
        units = list(soft_label_units(scope, criterion))
        values = [value for *_, answers in units for _, value in answers]
        entries = soft_labels.entries(
            units, criterion=criterion.name, categories=criterion_categories(criterion, values), lang=lang
        )
        out[names[criterion.name]] = json.dumps(entries, indent=2, ensure_ascii=False) + "\n"
        files.append(SoftLabelFile(criterion=criterion.name, path=names[criterion.name], units=len(entries)))
    return out, SoftLabelFacts(files=tuple(files), category_note=REGISTRY[task_type].category_note)


def _profile_files(scope, options: ExportOptions) -> tuple[dict[str, str], RaterProfileFacts | None]:
    """The raters' profile answers (sensitive fields only when asked for), and the card's facts about them; none
    without a profile form."""
    if not scope.project.profile_consent:  # no form (saves the export a query)
        return {}, None
    fields = profile_fields(scope.project)
    exported = [f.name for f in fields if options.include_sensitive_profile or not f.sensitive]
    answers = {
        scope.rater_names[user]: a
        for user, a in rater_profile_answers(scope.project).items()
        if user in scope.rater_names
    }
    facts = RaterProfileFacts(
        fields=tuple(
            ProfileFieldFacts(name=f.name, kind=f.kind, sensitive=f.sensitive, exported=f.name in exported)
            for f in fields
        ),
        n_raters=len(answers),
    )
    return {profiles.FILE: profiles.lines(answers, exported)}, facts


@dataclass(frozen=True)
class CardReadings:
    """The facts the card reads from the database (on a second connection while the rows are written)."""

    counts: CardCounts
    criteria: tuple[CriterionFacts, ...]
    label_distributions: dict[str, dict[str, int]]
    systems: dict[str, tuple[SystemMean | SystemTally, ...]]
    agreement: AgreementFacts
    qc: QcFacts
    #: For the manifest (export.json), not the card.
    snapshots_computed_at: str | None


def _in_background(read: Callable[[], CardReadings]) -> Callable[[], CardReadings]:
    """Starts ``read`` on its own thread and connection when no transaction is open; returns a function
    that waits for its result (or runs ``read`` then, inside a transaction)."""
    if connection.in_atomic_block or connection.vendor != "postgresql":
        return read
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="export-facts")
    future = pool.submit(_on_own_connection, read)
    pool.shutdown(wait=False)  # the thread ends with its read; nothing else is queued
    return future.result


def _on_own_connection(read: Callable[[], CardReadings]) -> CardReadings:
    try:
        return read()
    finally:
        connections.close_all()  # this thread's connections only


def export_card_readings(project: Project, scope, sizes) -> CardReadings:
    """What the card states of ``scope`` (an ExportScope) that it reads from the database rather than from the
    written files: counts, criteria, labels, systems, agreement and quality control."""
    agreement = agreement_for_card(project, rater_names=scope.rater_names)
    return CardReadings(
        counts=card_counts(scope, sizes),
        criteria=criteria_for_card(project),
        label_distributions=label_distributions(scope),
        systems=system_summary(scope),
        agreement=agreement,
        qc=qc_for_card(project),
        snapshots_computed_at=None if agreement.week is None else snapshots_computed_at(project),
    )


def _facts(
    project: Project,
    options: ExportOptions,
    readings: CardReadings,
    files: list[WrittenFile],
    item_spec,
    *,
    adjudicated: bool = False,
    chart: str | None,
    soft_labels: SoftLabelFacts | None,
    rater_profiles: RaterProfileFacts | None,
) -> CardFacts:
    """Everything the card and the datasheet state (it is also ``card.json``)."""
    task_type = project.task_type
    return CardFacts(
        project=ProjectFacts(
            name=options.pretty_name or project.name,
            task_type=task_type,
            instructions=project.instructions,
            raters_per_item=project.raters_per_item,
            double_annotation_share=project.double_annotation_share,
            gold_rate=project.gold_rate,
            lease_seconds=project.lease_seconds,
            show_reference=project.show_reference,
            rankme_modulus=project.rankme_modulus,
            rating_unit=project.rating_unit,
            task_config=project.task_config or {},
        ),
        options=OptionFacts(
            formats=options.formats,
            split=options.split,
            include_usernames=options.include_usernames,
            include_excluded=options.include_excluded,
            license=options.license,
            languages=options.languages,
            task_categories=options.task_categories,
            csv_raw_text=options.csv_raw_text,
        ),
        about=AboutFacts(**{name: getattr(options, name).strip() for name in ABOUT_FIELDS}),
        counts=readings.counts,
        criteria=readings.criteria,
        label_distributions=readings.label_distributions,
        systems=readings.systems,
        agreement=readings.agreement,
        qc=readings.qc,
        files=tuple(
            FileFacts(table=f.table, format=f.format, split=f.split, path=f.arcname, rows=f.n_rows) for f in files
        ),
        tables={
            spec.name: tuple(ColumnFacts(name=c.name, description=c.description) for c in spec.columns)
            for spec in (
                item_spec,
                judgments_table(task_type, adjudicated=adjudicated),
                scores_table(task_type),
                *((spans_table(adjudicated=adjudicated),) if has_spans(task_type) else ()),
                RATERS,
                *((VOTES,) if any(f.table == VOTES.name for f in files) else ()),
            )
        },
        chart=chart,
        soft_labels=soft_labels,
        rater_profiles=rater_profiles,
    )


def _zip(
    destination: Path,
    work: Path,
    files: list[WrittenFile],
    readme: str,
    heds: dict,
    card: str,
    chart: bytes | None,
    manifest: dict,
    extra: dict[str, str],
) -> None:
    def text(name: str, content: str) -> None:
        data = content.encode()
        archive.writestr(
            zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)),
            data,
            compress_type=zipfile.ZIP_DEFLATED,
            compresslevel=9,
        )
        manifest["files"].append({"path": name, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()})

    with zipfile.ZipFile(destination, "w", allowZip64=True) as archive:
        text("README.md", readme)
        text("heds.json", json.dumps(heds, indent=2, ensure_ascii=False) + "\n")
        text("card.json", card)
        for name, content in extra.items():
            text(name, content)
        if chart:
            archive.writestr(card_builder.CHART_NAME, chart, compress_type=zipfile.ZIP_STORED)
        for f in files:
            stored = f.path.suffix in STORED
            archive.write(
                f.path,
                f.arcname,
                compress_type=zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED,
                compresslevel=None if stored else DEFLATE_LEVEL,
            )
            manifest["files"].append({"path": f.arcname, "rows": f.n_rows, "bytes": f.path.stat().st_size})
        archive.writestr(
            "export.json",
            json.dumps(manifest, indent=2, ensure_ascii=False) + "\n",
            compress_type=zipfile.ZIP_DEFLATED,
        )


# --- The export as a tracked job ----------------------------------------------------------------------


def export_start(*, project: Project, options: ExportOptions, created_by) -> Export:
    """Records the export and queues its job (after the transaction commits); raises ExportOptionsError."""
    options = options.checked()
    with transaction.atomic():
        export = Export.objects.create(project=project, created_by=created_by, options=asdict(options))
        job = job_start(
            kind=EXPORT_KIND,
            task=queued_job(EXPORT_JOB),
            project=project,
            created_by=created_by,
            params={"export_id": export.id},
        )
        Export.objects.filter(pk=export.pk).update(job=job)
        export.job = job
        audit_record(
            actor=created_by,
            action="export.create",
            project=project,
            target=f"export {export.id}",
            detail={"export_id": export.id, "options": asdict(options)},
        )
    return export


def export_path(export: Export) -> Path:
    return Path(settings.MEDIA_ROOT) / export.file


def export_zip_path(export: Export) -> Path:
    """Where an export's zip goes, under MEDIA_ROOT."""
    return Path("exports") / f"project-{export.project_id}" / f"export-{export.id}.zip"


def export_run(*, export_id: int, progress: Callable[[float, float, str], None] | None = None) -> dict:
    """Builds an export's zip under MEDIA_ROOT/exports/ (written beside, then renamed into place, so a
    half-written zip is never served) and returns the job result with its download link."""
    export = Export.objects.select_related("project").get(pk=export_id)
    partial = (Path(settings.MEDIA_ROOT) / export_zip_path(export)).with_suffix(".zip.part")
    try:
        summary = export_write(
            project=export.project,
            options=ExportOptions.from_dict(export.options),
            destination=partial,
            progress=progress,
        )
        return export_publish(export=export, partial=partial, summary=summary)
    finally:
        partial.unlink(missing_ok=True)


def export_publish(*, export: Export, partial: Path, summary: dict) -> dict:
    """Renames the finished zip ``partial`` into place, records it on the export and returns the job result."""
    relative = export_zip_path(export)
    final = Path(settings.MEDIA_ROOT) / relative
    digest = hashlib.sha256()
    with open(partial, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    os.replace(partial, final)
    size = final.stat().st_size
    Export.objects.filter(pk=export.pk).update(
        file=str(relative),
        size_bytes=size,
        sha256=digest.hexdigest(),
        n_judgments=summary["n_judgments"],
        finished_at=timezone.now(),
    )
    return {
        "export_id": export.id,
        "download": f"/api/v1/exports/{export.id}/download/",
        "size_bytes": size,
        "sha256": digest.hexdigest(),
        "n_judgments": summary["n_judgments"],
        "agreement_recomputed": summary["agreement_recomputed"],
        "n_files": len(summary["files"]),
    }


def export_state(export: Export) -> str:
    """ready, or the state of its job (pending, running, failure)."""
    if export.is_ready:
        return "ready"
    return export.job.state if export.job else Job.State.FAILURE
