"""Automatic metric scores per output, automatic judges (raters marked "model") and their ratings,
and saved metric calibrators."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotation.models import Criterion, Output, Project


class MetricScore(models.Model):
    """One automatic metric's score of one output: computed here, imported, or a calibrator's output."""

    class Source(models.TextChoices):
        COMPUTED = "computed"
        IMPORTED = "imported"
        CALIBRATED = "calibrated"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="metric_scores")
    output = models.ForeignKey(Output, on_delete=models.CASCADE, related_name="metric_scores")
    name = models.CharField(max_length=200)
    value = models.FloatField(null=True, help_text="Null where the metric is undefined for the output.")
    source = models.CharField(max_length=10, choices=Source.choices)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["output", "name"], name="metricscore_one_per_output_and_name"),
            models.CheckConstraint(
                condition=Q(source__in=["computed", "imported", "calibrated"]),
                name="metricscore_source_known",
            ),
        ]
        indexes = [models.Index(fields=["project", "name"], name="metricscore_project_name")]

    def __str__(self):
        return f"{self.name}={self.value} on output {self.output_id}"


class Judge(models.Model):
    """An automatic rater ("model"): an LLM prompted as a rater, or a metric with thresholds.

    Its ratings live apart from human judgments so that agreement and results built on humans
    never include them by accident.
    """

    class Kind(models.TextChoices):
        LLM = "llm", "LLM prompted as a rater"
        METRIC = "metric", "Metric with thresholds"
        OTHER = "other", "Other automatic judge"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="judges")
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.LLM)
    description = models.TextField(blank=True)
    config = models.JSONField(default=dict, blank=True, help_text="How the judge was made (prompt, thresholds...).")
    # A run's version: judges of one model with another prompt or date are compared side by side.
    model_name = models.CharField(
        max_length=200, blank=True, help_text="The model behind the run (e.g. gpt-4o-2024-08-06)."
    )
    prompt_hash = models.CharField(max_length=64, blank=True, help_text="A hash of the prompt the run used.")
    run_on = models.DateField(null=True, blank=True, help_text="When the run was made.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["project_id", "name"]
        constraints = [
            models.UniqueConstraint(fields=["project", "name"], name="judge_name_unique_in_project"),
            models.CheckConstraint(condition=Q(kind__in=["llm", "metric", "other"]), name="judge_kind_known"),
        ]

    def __str__(self):
        return self.name

    @property
    def rater_type(self) -> str:
        return "model"

    @property
    def version(self) -> str:
        """model · prompt hash (8 characters) · date, the parts that are known."""
        parts = [self.model_name, self.prompt_hash[:8], self.run_on.isoformat() if self.run_on else ""]
        return " · ".join(p for p in parts if p)


class JudgeRating(models.Model):
    """A judge's value for one output on one criterion, coded like a human judgment (pairwise: on the
    item's first output, 0 it loses, 1 tie, 2 it wins)."""

    judge = models.ForeignKey(Judge, on_delete=models.CASCADE, related_name="ratings")
    output = models.ForeignKey(Output, on_delete=models.CASCADE, related_name="judge_ratings")
    criterion = models.ForeignKey(Criterion, on_delete=models.CASCADE, related_name="judge_ratings")
    value = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["judge", "output", "criterion"], name="judgerating_one_per_output_and_criterion"
            ),
        ]

    def __str__(self):
        return f"{self.judge_id}: {self.value} on output {self.output_id}"


class Calibrator(models.Model):
    """A fitted combination of metrics that tracks one criterion; ``params`` holds the standardisation
    and weights (``evaluation.stats.Calibrator.as_dict``), ``report`` the held-out evaluation."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="calibrators")
    name = models.CharField(max_length=100)
    criterion = models.ForeignKey(Criterion, on_delete=models.CASCADE, related_name="calibrators")
    params = models.JSONField()
    report = models.JSONField(default=dict)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["project", "name"], name="calibrator_name_unique_in_project"),
        ]

    def __str__(self):
        return self.name

    @property
    def metric_name(self) -> str:
        """Name of the MetricScore rows this calibrator writes when applied."""
        return f"calibrated:{self.name}"


class Export(models.Model):
    """One export of a project as a zip (data files, README.md data card, HEDS datasheet); the job that
    builds it reports progress, ``file`` is set once the zip is complete."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="exports")
    job = models.ForeignKey("core.Job", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    options = models.JSONField(default=dict, help_text="The export options, as validated.")
    file = models.CharField(
        max_length=300, blank=True, help_text="Path of the zip under MEDIA_ROOT; empty until it is complete."
    )
    size_bytes = models.BigIntegerField(null=True, blank=True)
    sha256 = models.CharField(max_length=64, blank=True)
    n_judgments = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["project", "-created_at"], name="export_project_time")]

    def __str__(self):
        return f"export {self.pk} of project {self.project_id}"

    @property
    def is_ready(self) -> bool:
        return bool(self.file)


class MetricInput(models.Model):
    """A file a project's metrics read beside the outputs, uploaded by a lead: the training corpus
    (dialog entropy, KL, distinct, n-gram perplexity) or word vectors (dialog embedding metrics).
    One of each kind per project; a new upload replaces the file."""

    class Kind(models.TextChoices):
        TRAINING_CORPUS = "training_corpus"
        WORD_VECTORS = "word_vectors"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="metric_inputs")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    file = models.CharField(max_length=300, help_text="Path under MEDIA_ROOT.")
    original_name = models.CharField(max_length=255, blank=True)
    size_bytes = models.BigIntegerField()
    summary = models.JSONField(default=dict, help_text="What was read: lines and words, or vectors and dimension.")
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    uploaded_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["kind"]
        constraints = [
            models.UniqueConstraint(fields=["project", "kind"], name="metricinput_one_per_kind"),
            models.CheckConstraint(
                condition=Q(kind__in=["training_corpus", "word_vectors"]), name="metricinput_kind_known"
            ),
        ]

    def __str__(self):
        return f"{self.kind} of project {self.project_id}"


class RaterModelsResult(models.Model):
    """The rater models of a project as last computed (``evaluation.services.rater_models_compute``, a job), for
    one MACE seed: the report, when it was computed and the judgments it saw (their number, the last id and the raters
    excluded), by which a reader tells whether judgments came, went or were left out since."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="rater_models")
    seed = models.PositiveIntegerField(default=0)
    report = models.JSONField()
    computed_at = models.DateTimeField()
    n_judgments = models.PositiveIntegerField(help_text="Judgment rows of the project when it was computed.")
    judgments_through = models.PositiveBigIntegerField(help_text="The last judgment id it saw (0: none).")
    excluded_raters = models.JSONField(default=list, help_text="Ids of the raters quality control left out then.")

    class Meta:
        ordering = ["-computed_at"]
        constraints = [
            models.UniqueConstraint(fields=["project", "seed"], name="rater_models_one_per_project_and_seed"),
        ]

    def __str__(self):
        return f"rater models of project {self.project_id} (seed {self.seed})"


class VoteImport(models.Model):
    """One file of pairwise votes from a finished study run elsewhere (e.g. a public arena's dump), imported on
    one criterion of a project whose type compares pairs. Votes are analysed on their own (results' ``votes``,
    the export's ``votes`` table): quality control, allocation, agreement and adjudication never read them."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="vote_imports")
    criterion = models.ForeignKey(Criterion, on_delete=models.CASCADE, related_name="vote_imports")
    file_name = models.CharField(max_length=255, blank=True)
    layout = models.CharField(max_length=8, help_text="arena (model_a, model_b, judge...) or concord.")
    n_votes = models.BigIntegerField(default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self):
        return f"{self.n_votes} votes into project {self.project_id}"


class VoteName(models.Model):
    """The names votes refer to by number (a system, a rater's pseudonym or judge id), per project: a vote row
    holds small integers, which keeps ten million of them compact. (Prompt ids are about one per vote in arena
    dumps: a dictionary would save nothing, so a vote holds its prompt id as text.)"""

    class Kind(models.TextChoices):
        SYSTEM = "system"
        RATER = "rater"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="vote_names")
    kind = models.CharField(max_length=6, choices=Kind.choices)
    code = models.IntegerField()
    name = models.CharField(max_length=255)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "kind", "code"], name="votename_code_unique"),
            models.UniqueConstraint(fields=["project", "kind", "name"], name="votename_name_unique"),
            models.CheckConstraint(condition=Q(kind__in=["system", "rater"]), name="votename_kind_known"),
        ]

    def __str__(self):
        return f"{self.kind} {self.code}: {self.name}"


class Vote(models.Model):
    """One pairwise vote: ``system_a`` against ``system_b`` (VoteName codes of kind system), the outcome for
    ``system_a``; ``rater`` is a VoteName code too. Written only by ``vote_import`` (COPY on
    PostgreSQL), which keeps the codes consistent with VoteName; no foreign keys, to keep rows small."""

    class Outcome(models.IntegerChoices):
        B_WINS = 0, "system_b wins"
        TIE = 1, "tie"
        A_WINS = 2, "system_a wins"
        TIE_BOTH_BAD = 3, "tie (both bad)"

    batch = models.ForeignKey(VoteImport, on_delete=models.CASCADE, related_name="votes")
    system_a = models.SmallIntegerField()
    system_b = models.SmallIntegerField()
    outcome = models.SmallIntegerField(choices=Outcome.choices)
    rater = models.IntegerField(null=True, blank=True)
    # NULL, not "", where the study named no prompt: a NULL takes no bytes in the row (DJ001's rule is for forms).
    prompt = models.CharField(  # noqa: DJ001
        max_length=255, null=True, blank=True, help_text="The prompt's id in the study."
    )
    submitted_at = models.DateTimeField(null=True, blank=True)
    sampling_probability = models.FloatField(
        null=True, blank=True, help_text="Probability the pair was drawn with, when the study recorded it."
    )

    def __str__(self):
        return f"vote {self.pk}: {self.system_a} vs {self.system_b} → {self.outcome}"
