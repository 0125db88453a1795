"""What leads (and staff) did to a project: one append-only row per action.

Action names are dotted, ``<subject>.<verb>``; a filter by prefix (``rater``) takes a whole group.
Every name in use is in ``ACTIONS`` with what it means; a new lead action adds its own name there.
"""

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models

ACTIONS = {
    "project.create": "created the project (detail: its settings and criteria)",
    "project.update": "changed the project's settings or criteria (detail: each changed field, before and after)",
    "project.plan_apply": "applied a study plan's raters per item to every item (detail: before and after)",
    "project.live": "opened the project to its raters (detail: the status before)",
    "project.paused": "paused the project: raters get nothing to judge (detail: the status before)",
    "project.closed": "closed the project for good (detail: the status before)",
    "project.archive": "archived the project: hidden from the home list, read-only until restored",
    "project.restore": "restored the archived project (its status as before archiving)",
    "project.delete": "deleted the project with its items and judgments (target: its name; detail: counts)",
    "project.clone": "made this project as a copy of another (target: the original; detail: what was copied)",
    "member.add": "added a member (target: the user; detail: role)",
    "member.role_change": "changed a member's role (detail: before and after)",
    "user.create": "created a login account (staff only; no project)",
    "items.import": "imported items (target: the file; detail: count and format)",
    "items.update": "re-uploaded items in update mode (target: the file; detail: added, updated, unchanged, refused)",
    "item.retire": "retired an item: no longer served; its judgments are kept and marked (target: external id)",
    "item.unretire": "served a retired item again (target: external id)",
    "item.replace": "replaced the text of an item no rater had judged (target: external id; detail: fields)",
    "judgments.import": "imported judgments run elsewhere (target: the file; detail: count)",
    "votes.import": "imported pairwise votes of a study run elsewhere (target: the file; detail: count, layout, "
    "criterion)",
    "qc.rules_update": "changed the quality-control rules (detail: version and each changed rule)",
    "allocation.update": "changed the quotas or the design of the allocation (detail: changed settings, places)",
    "allocation.rater_quota": "set one rater's own maximum and expected screens",
    "task_config.update": "changed task-type settings a running study may change, e.g. a pairwise project's "
    "adaptive allocation (detail: before, after)",
    "adjudication.rule": "set the adjudication rule (detail: on or off, and its threshold)",
    "profile.form": "replaced the rater profile form (detail: its fields, and which are sensitive)",
    "qc.apply": "applied the rules to every rater now (detail: the actions they took)",
    "rater.pause": "paused a rater (target: the rater; detail: reason)",
    "rater.resume": "resumed a rater",
    "rater.exclude": "excluded a rater's judgments from agreement, results and exports",
    "rater.include": "counted an excluded rater's judgments again",
    "rater.not_admitted": "the qualification gate kept a rater from the real work (target: the rater; detail: "
    "their training result and the pass mark)",
    "rater.admit": "admitted a rater the qualification gate had kept out (detail: reason)",
    "controls.settings": "changed the controls: training items, pass mark, gold and repeat rates (detail: each "
    "changed setting, before and after)",
    "rater.remove": "took a rater out of the project, releasing their leases (their judgments stay)",
    "invite.create": "made an invite link for raters (detail: uses allowed, expiry)",
    "invite.revoke": "revoked an invite link",
    "invite.email": "emailed an invite link (detail: the address it went to)",
    "accounts.bulk_create": "created rater accounts from a CSV (target: how many; passwords never logged)",
    "external_link.create": "made the external-worker (crowd platform) entry link",
    "external_link.reset": "replaced the external-worker link's token (the old link stops working)",
    "external_link.disable": "turned the external-worker link off",
    "external_link.configure": "changed the external-worker link's identity caps, platform checks or completion "
    "rule (detail: changed; never the signing secret)",
    "external_link.new_secret": "replaced the external-worker link's signing secret (old signatures stop working)",
    "controls.degraded_create": "added degraded control copies (detail: n, seed, methods)",
    "controls.repeat_create": "added repeat control copies (detail: n, seed)",
    "agreement.settings_update": "changed the agreement alert settings (detail: before and after)",
    "agreement.schedule_set": "set the weekly agreement recompute (detail: before and after)",
    "agreement.recompute": "asked for an agreement recompute (detail: the job)",
    "metrics.import": "imported metric scores computed elsewhere (target: the file; detail: count, metrics)",
    "metrics.compute": "scored the outputs with automatic metrics (detail: the metrics, the job or the count)",
    "rater_models.recompute": "asked for the rater models to be fitted again (detail: the MACE seed)",
    "metrics.input_upload": "uploaded a file the metrics read (target: training_corpus or word_vectors; detail: size)",
    "calibrator.fit": "fitted (or refitted) a metric calibrator (target: its name)",
    "calibrator.apply": "scored the outputs with a calibrator (detail: outputs scored)",
    "judges.import": "imported an automatic judge's ratings (target: the file; detail: count, judges)",
    "judge.from_metric": "made a judge from a metric and thresholds (target: its name)",
    "export.create": "exported the dataset (detail: the options, the export or the file written)",
    "export.reimport": "loaded an export into this new project (target: the zip; detail: counts)",
}


class AuditEntry(models.Model):
    class Source(models.TextChoices):
        WEB = "web", "web page"
        API = "api", "API"
        COMMAND = "command", "command or job"

    project = models.ForeignKey(
        "annotation.Project", null=True, blank=True, on_delete=models.SET_NULL, related_name="audit_entries"
    )
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Kept beside the foreign keys so the log still reads after a user or project is deleted.
    actor_name = models.CharField(
        max_length=150, blank=True, help_text="The user's name, or for a command its name (manage.py …)."
    )
    project_name = models.CharField(max_length=200, blank=True)
    action = models.CharField(
        max_length=64,
        help_text="Dotted verb, e.g. project.create, items.import, export.create; the list is audit.models.ACTIONS.",
    )
    target = models.CharField(max_length=255, blank=True, help_text="What the action touched, e.g. a rater's name.")
    detail = models.JSONField(default=dict, blank=True, encoder=DjangoJSONEncoder)
    source = models.CharField(max_length=8, choices=Source.choices, default=Source.COMMAND)
    ip = models.GenericIPAddressField(null=True, blank=True, help_text="The client's address, for web and API.")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["project", "-created_at"], name="audit_project_recent")]
        verbose_name_plural = "audit entries"

    def __str__(self):
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.actor_name} {self.action} {self.target}".strip()
