"""The lead console's forms: a project's settings and its criteria (a formset). They parse and bound the
input for the page; the services apply the project rules (annotation.services.project)."""

from django import forms
from django.core.exceptions import ValidationError

from annotation.models import Project, TaskType
from annotation.services.allocation import MAX_HOLD_MINUTES
from annotation.services.project import SETTING_LIMITS
from annotation.task_types import REGISTRY
from annotation.task_types.adaptive import DEFAULT_WEIGHTING

# The task types' default criterion (a new project starts as the first registered type), and the
# instructions a new project starts from.
CRITERION_DEFAULTS = {slug: t.setup.criterion for slug, t in REGISTRY.items()}
DEFAULT_TASK_TYPE = next(iter(REGISTRY))
INSTRUCTIONS_DEFAULT = """## What you will do

Read the **input**, then judge each output on every criterion below.

- Judge each output on its own merits.
- If an item is broken or you cannot judge it, flag it.
"""


def _percent(field: str, label: str, help_text: str) -> forms.FloatField:
    low, high = SETTING_LIMITS[field]
    return forms.FloatField(
        label=label,
        min_value=low * 100,
        max_value=high * 100,
        help_text=help_text,
        widget=forms.NumberInput(attrs={"step": "any"}),
    )


def _plain(x: float) -> float | int:
    """A number as a person writes it: 15, not 15.0; 33.3333, not 33.33333333333333."""
    x = round(float(x), 4)
    return int(x) if x.is_integer() else x


class ProjectSettingsForm(forms.Form):
    """The settings in the units a lead thinks in (percent, minutes); ``settings()`` gives the
    services' units."""

    name = forms.CharField(max_length=200, label="Project name")
    task_type = forms.ChoiceField(choices=TaskType.choices, widget=forms.RadioSelect, label="Task type")
    instructions = forms.CharField(
        required=False,
        label="Instructions for raters",
        widget=forms.Textarea(attrs={"rows": 10, "spellcheck": "true"}),
        help_text="Markdown: **bold**, *italic*, lists, headings, links. Raters read them before their first item.",
    )
    raters_per_item = forms.IntegerField(
        label="Raters per item",
        min_value=SETTING_LIMITS["raters_per_item"][0],
        max_value=SETTING_LIMITS["raters_per_item"][1],
        help_text="How many raters judge each double-annotated item.",
    )
    double_annotation_share = _percent(
        "double_annotation_share",
        "Double-annotated share (%)",
        "Share of items judged by that many raters; the others get one rater. Agreement needs some overlap.",
    )
    gold_rate = _percent("gold_rate", "Gold rate (%)", "Share of screens showing a gold item (checks raters).")
    lease_minutes = forms.FloatField(
        label="Lease time (minutes)",
        min_value=SETTING_LIMITS["lease_seconds"][0] / 60,
        max_value=SETTING_LIMITS["lease_seconds"][1] / 60,
        widget=forms.NumberInput(attrs={"step": "any"}),
        help_text="How long an item stays reserved for the rater who opened it.",
    )
    randomise_output_order = forms.BooleanField(
        required=False,
        label="Shuffle the outputs for each rater",
        help_text="Likert and RankME. Pairwise always balances left and right.",
    )
    show_reference = forms.BooleanField(required=False, label="Show the reference texts to raters")
    rating_unit = forms.ChoiceField(
        required=False,
        choices=Project.RatingUnit.choices,
        widget=forms.RadioSelect,
        label="What each criterion rates",
        help_text="For outputs that are conversations: the whole output, each assistant turn on its own (the "
        "questions sit under every assistant turn), or both. Agreement and results keep turns and whole outputs "
        "apart. Only task types that rate turns ("
        + ", ".join(TaskType(slug).label for slug, t in REGISTRY.items() if t.rates_turns)
        + ") take a per-turn unit; every output must then be a conversation.",
    )
    rankme_modulus = forms.FloatField(
        required=False,
        min_value=0,
        label="RankME modulus (optional)",
        widget=forms.NumberInput(attrs={"step": "any"}),
        help_text="RankME only: each item's reference is shown first with this fixed score (e.g. 100) and raters "
        "give the outputs any positive score relative to it. Every item then needs a reference.",
    )

    @classmethod
    def initial_for(cls, project: Project | None) -> dict:
        if project is None:
            return {
                "task_type": DEFAULT_TASK_TYPE,
                "instructions": INSTRUCTIONS_DEFAULT,
                "raters_per_item": 2,
                "double_annotation_share": 20,
                "gold_rate": 0,
                "lease_minutes": 15,
                "randomise_output_order": True,
                "show_reference": False,
                "rating_unit": Project.RatingUnit.CONVERSATION,
                "rankme_modulus": None,
            }
        return {
            "name": project.name,
            "task_type": project.task_type,
            "instructions": project.instructions,
            "raters_per_item": project.raters_per_item,
            "double_annotation_share": _plain(project.double_annotation_share * 100),
            "gold_rate": _plain(project.gold_rate * 100),
            "lease_minutes": _plain(project.lease_seconds / 60),
            "randomise_output_order": project.randomise_output_order,
            "show_reference": project.show_reference,
            "rating_unit": project.rating_unit,
            "rankme_modulus": project.rankme_modulus,
        }

    def settings(self) -> dict:
        data = self.cleaned_data
        return {
            "name": data["name"],
            "task_type": data["task_type"],
            "instructions": data["instructions"],
            "raters_per_item": data["raters_per_item"],
            "double_annotation_share": data["double_annotation_share"] / 100,
            "gold_rate": data["gold_rate"] / 100,
            "lease_seconds": round(data["lease_minutes"] * 60),
            "randomise_output_order": data["randomise_output_order"],
            "show_reference": data["show_reference"],
            "rating_unit": data["rating_unit"] or Project.RatingUnit.CONVERSATION,
            "rankme_modulus": data["rankme_modulus"],
        }


class CriterionForm(forms.Form):
    id = forms.IntegerField(required=False, widget=forms.HiddenInput)
    name = forms.CharField(max_length=100, label="Name")
    scale_min = forms.FloatField(required=False, label="Scale from", widget=forms.NumberInput(attrs={"step": "any"}))
    scale_max = forms.FloatField(required=False, label="to", widget=forms.NumberInput(attrs={"step": "any"}))
    labels = forms.CharField(
        required=False,
        label="Labels",
        widget=forms.Textarea(attrs={"rows": 5}),
        help_text="One per line, lowest first: one per scale point (Likert) or the two ends (RankME).",
    )
    help_text = forms.CharField(required=False, label="Help text", widget=forms.Textarea(attrs={"rows": 2}))

    def spec(self) -> dict:
        data = self.cleaned_data
        labels = [line.strip() for line in data["labels"].splitlines() if line.strip()]
        spec = {
            "name": data["name"],
            "scale_min": data["scale_min"],
            "scale_max": data["scale_max"],
            "labels": labels,
            "help_text": data["help_text"],
        }
        if data.get("id"):
            spec["id"] = data["id"]
        return spec

    @staticmethod
    def initial_from(spec: dict) -> dict:
        scale = {k: None if spec.get(k) is None else _plain(spec[k]) for k in ("scale_min", "scale_max")}
        return {**spec, **scale, "labels": "\n".join(spec.get("labels") or [])}


class BaseCriterionFormSet(forms.BaseFormSet):
    def add_fields(self, form, index):
        super().add_fields(form, index)
        form.fields["ORDER"].label = "Position"
        form.fields["DELETE"].label = "Remove"

    def forms_in_order(self) -> list:
        """The rows as the lead ordered them (their positions), for showing the form again."""

        def position(indexed):
            raw = str(indexed[1]["ORDER"].value() or "")
            return (int(raw) if raw.isdigit() else float("inf"), indexed[0])

        return [form for _, form in sorted(enumerate(self.forms), key=position)]

    def specs(self) -> list[dict]:
        """The criteria kept, in the order given (call after is_valid)."""
        return [form.spec() for form in self.ordered_forms]

    def lenient_specs(self) -> list[dict]:
        """The rows that parse, in the order given, whatever the others hold (for the live preview)."""
        if not self.is_bound:
            return [
                {**row, "labels": [x for x in row.get("labels", "").splitlines() if x.strip()]}
                for row in self.initial or []
            ]
        rows = []
        for index, form in enumerate(self.forms):
            if not form.is_valid() or not form.has_changed() and index >= self.initial_form_count():
                continue
            if form.cleaned_data.get("DELETE"):
                continue
            order = form.cleaned_data.get("ORDER")
            rows.append((order if order is not None else float("inf"), index, form.spec()))
        return [spec for _, _, spec in sorted(rows, key=lambda r: (r[0], r[1]))]

    def add_service_errors(self, errors: list[ValidationError]) -> list[str]:
        """Puts each service error about a criterion beside its row and field; returns the others."""
        kept = self.ordered_forms
        loose = []
        for error in errors:
            params = error.params or {}
            row = params.get("row")
            if row is not None and row < len(kept):
                field = params.get("field")
                kept[row].add_error(field if field in kept[row].fields else None, error.messages)
            else:
                loose.extend(error.messages)
        return loose


CriterionFormSet = forms.formset_factory(
    CriterionForm, formset=BaseCriterionFormSet, extra=0, can_order=True, can_delete=True, max_num=50, validate_max=True
)


class AllocationForm(forms.Form):
    """The allocation settings (annotation.services.allocation); empty numbers mean "none"."""

    max_screens_per_rater = forms.IntegerField(
        required=False,
        min_value=1,
        label="Maximum screens per rater",
        help_text="Control screens included. Each rater is served at most this many; empty: no cap.",
    )
    expected_screens_per_rater = forms.IntegerField(
        required=False,
        min_value=1,
        label="Expected screens per rater",
        help_text="What raters are told and paid for; the design warns when it plans more.",
    )
    planned_raters = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=62,
        label="Planned raters",
        help_text="The design spreads the work over this many raters, who take their places as they join. "
        "Empty: as many as the maximum needs.",
    )
    min_pair_overlap = forms.IntegerField(
        min_value=0,
        max_value=10_000,
        label="Shared units per pair of raters (at least)",
        help_text="Asking for more shared units per pair means fewer pairs share units; each rater always shares "
        "units with the raters just before and after them in the design, so every rater can be compared.",
    )
    replan_excluded_judgments = forms.BooleanField(
        required=False, label="When a rater is excluded, their judged items want another rater"
    )
    vacated_hold_minutes = forms.IntegerField(
        min_value=0,
        max_value=MAX_HOLD_MINUTES,
        label="Minutes a left rater's shared items wait for their successor",
        help_text="When a rater leaves, the next rater to join takes their place. Meanwhile the items the place "
        "shares with other raters wait this long for them, so that they share what the design planned; "
        "other raters then take them. Its other items go to other raters at once. 0: no wait.",
    )

    @classmethod
    def for_project(cls, project: Project, data=None):
        return cls(data, initial={name: getattr(project, name) for name in cls.base_fields})


class AdaptiveForm(forms.Form):
    """A pairwise or best–worst project's adaptive allocation (annotation.task_types.adaptive) and, where the type
    takes it, the judgments each system needs before its ranking stops being provisional."""

    enabled = forms.BooleanField(required=False, label="Draw each screen's pair (or tuple) adaptively")
    target = forms.ChoiceField(
        choices=[("ranking", "the whole ranking"), ("top_k", "the top k")],
        label="Sharpen",
        help_text="Judgments go where they most shrink the uncertainty of this.",
    )
    top_k = forms.IntegerField(required=False, min_value=1, label="k (with the top k)")
    cold_start = forms.IntegerField(
        required=False,
        min_value=0,
        label="Judgments before adapting",
        help_text="Drawn uniformly over the pairs (tuples) first; empty: two per pair (one per tuple).",
    )
    floor = forms.FloatField(
        required=False,
        min_value=0.01,
        max_value=1,
        label="Share kept uniform",
        help_text="Every pair (tuple) keeps at least this share of a uniform draw, so no weight exceeds 1 / it; empty: "
        "0.3 weighted back, 0.1 unweighted.",
    )
    weighting = forms.ChoiceField(
        choices=[
            ("inverse_probability", "weighted back to a uniform design (holds even if the model is wrong)"),
            ("none", "unweighted maximum likelihood (most precise when Bradley–Terry holds)"),
        ],
        required=False,
        label="Strengths reported",
        help_text="Weighted back, each judgment counts q / the probability its pair was drawn with; unweighted, "
        "the allocation can favour the informative pairs more, so a whole ranking needs fewer judgments.",
    )
    min_judgments_per_system = forms.IntegerField(
        required=False,
        min_value=0,
        label="Judgments per system before the ranking is final",
        help_text="The results mark the ranking provisional while a system has fewer; empty or 0: never.",
    )

    @classmethod
    def for_project(cls, project: Project, data=None):
        config = project.task_config or {}
        adaptive = config.get("adaptive") or {}
        form = cls(
            data,
            initial={
                "enabled": bool(adaptive),
                "target": adaptive.get("target", "ranking"),
                "top_k": adaptive.get("top_k"),
                "cold_start": adaptive.get("cold_start"),
                "floor": adaptive.get("floor"),
                "weighting": adaptive.get("weighting", "inverse_probability"),
                "min_judgments_per_system": config.get("min_judgments_per_system"),
            },
        )
        if "min_judgments_per_system" not in REGISTRY[project.task_type].live_config_fields:
            del form.fields["min_judgments_per_system"]
        return form

    def changes(self) -> dict:
        """The task_config fields to change (annotation.services.adaptive_allocation.adaptive_config_update)."""
        data = self.cleaned_data
        adaptive = None
        if data["enabled"]:
            adaptive = {
                "target": data["target"],
                "top_k": data["top_k"] if data["target"] == "top_k" else None,
                "cold_start": data["cold_start"],
                "floor": data["floor"],
                "weighting": data["weighting"] or DEFAULT_WEIGHTING,
            }
        if "min_judgments_per_system" not in self.fields:
            return {"adaptive": adaptive}
        return {"adaptive": adaptive, "min_judgments_per_system": data["min_judgments_per_system"] or None}


class RaterQuotaForm(forms.Form):
    rater = forms.IntegerField(widget=forms.HiddenInput)
    max_screens = forms.IntegerField(required=False, min_value=1, label="Maximum")
    expected_screens = forms.IntegerField(required=False, min_value=1, label="Expected")
