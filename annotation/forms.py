"""Form validation for the lead pages."""

from django import forms


class ImportForm(forms.Form):
    file = forms.FileField(help_text="JSONL (one item per line) or CSV with output_1..k and system_1..k columns.")


def _percent(label: str, help_text: str, high: float = 100) -> forms.FloatField:
    return forms.FloatField(
        label=label, min_value=0, max_value=high, help_text=help_text, widget=forms.NumberInput(attrs={"step": "any"})
    )


def _count(label: str, help_text: str, high: int = 10_000) -> forms.IntegerField:
    return forms.IntegerField(label=label, min_value=0, max_value=high, help_text=help_text)


def _plain(x: float) -> float | int:
    """A number as a person writes it: 70, not 70.0."""
    x = round(float(x), 6)
    return int(x) if x.is_integer() else x


class QcRulesForm(forms.Form):
    """The quality-control rules in the units a lead thinks in (percent, seconds); ``rules()`` gives the
    service's units."""

    gold_accuracy_percent = _percent(
        "Gold accuracy needed (%)",
        "Share of a rater's first answers on gold screens that must be right. 0 turns the rule off.",
    )
    min_gold_answered = _count(
        "Gold screens answered before the accuracy rule applies",
        "With fewer, the accuracy "
        "says too little; the rule on flags on control screens waits for this many control "
        "screens too.",
    )
    min_seconds_per_judgment = forms.FloatField(
        label="Fastest plausible time per screen (seconds)",
        min_value=0,
        max_value=3600,
        widget=forms.NumberInput(attrs={"step": "any"}),
        help_text="The rule fires when most of a rater's last 20 screens were answered faster. 0 turns it off.",
    )
    straight_line_run = _count(
        "Identical answers in a row allowed",
        "The rule fires after this many screens in a row with identical answers (straight-lining). 0 turns it off.",
    )
    degraded_p_threshold = forms.FloatField(
        label="Degraded controls: p-value limit",
        min_value=0,
        max_value=1,
        widget=forms.NumberInput(attrs={"step": "any"}),
        help_text="The rule fires when a rater does not score degraded copies clearly lower than their originals: "
        "the one-sided test of that gives a p-value above this (e.g. 0.05). 0 turns it off.",
    )
    min_degraded_answered = _count(
        "Degraded copies judged before that rule applies",
        "Degraded copies a rater must have judged before the p-value rule applies.",
    )
    control_flag_percent = _percent(
        "Flags on control screens allowed (%)",
        "The rule fires when a rater flags more than this share of the control screens served to them. 0 turns it off.",
    )
    action = forms.ChoiceField(
        label="When a rule fires",
        choices=[
            ("warn", "Warn: log it only"),
            ("pause", "Pause the rater"),
            ("exclude", "Exclude the rater's judgments and pause them"),
        ],
    )

    @classmethod
    def initial_for(cls, rules) -> dict:
        return {
            "gold_accuracy_percent": _plain(rules.gold_accuracy_threshold * 100),
            "min_gold_answered": rules.min_gold_answered,
            "min_seconds_per_judgment": _plain(rules.min_seconds_per_judgment),
            "straight_line_run": rules.straight_line_run,
            "degraded_p_threshold": _plain(rules.degraded_p_threshold),
            "min_degraded_answered": rules.min_degraded_answered,
            "control_flag_percent": _plain(rules.control_flag_share * 100),
            "action": rules.action,
        }

    def rules(self) -> dict:
        data = self.cleaned_data
        return {
            "gold_accuracy_threshold": data["gold_accuracy_percent"] / 100,
            "min_gold_answered": data["min_gold_answered"],
            "min_seconds_per_judgment": data["min_seconds_per_judgment"],
            "straight_line_run": data["straight_line_run"],
            "degraded_p_threshold": data["degraded_p_threshold"],
            "min_degraded_answered": data["min_degraded_answered"],
            "control_flag_share": data["control_flag_percent"] / 100,
            "action": data["action"],
        }


class ControlSettingsForm(forms.Form):
    training_items = _count(
        "Training screens per rater",
        "Each rater's first screens: items of the training pool, each followed by the expected answer and why.",
        high=1000,
    )
    training_pass_mark_percent = _percent(
        "Qualification pass mark (%)",
        "Share of the training screens a rater must "
        "answer right to be admitted to the real work (a flagged one counts as "
        "wrong). 0: no gate.",
    )
    gold_rate_percent = _percent(
        "Gold screens (% of screens)",
        "Items of the gold pool, whose answers are known, at random positions after training.",
        high=99,
    )
    repeat_rate_percent = _percent(
        "Repeat screens (% of screens)",
        "Items the rater judged a few screens before, shown again (add them below).",
        high=99,
    )

    @classmethod
    def initial_for(cls, project) -> dict:
        return {
            "training_items": project.training_items,
            "training_pass_mark_percent": _plain(project.training_pass_mark * 100),
            "gold_rate_percent": _plain(project.gold_rate * 100),
            "repeat_rate_percent": _plain(project.repeat_rate * 100),
        }

    def settings(self) -> dict:
        data = self.cleaned_data
        return {
            "training_items": data["training_items"],
            "training_pass_mark": data["training_pass_mark_percent"] / 100,
            "gold_rate": data["gold_rate_percent"] / 100,
            "repeat_rate": data["repeat_rate_percent"] / 100,
        }


class DegradedControlsForm(forms.Form):
    n = forms.IntegerField(
        label="Degraded copies to add",
        min_value=1,
        max_value=10_000,
        help_text="Each copies a different real item and degrades its outputs.",
    )
    seed = forms.IntegerField(
        label="Random seed", initial=0, help_text="The same seed gives the same copies; use a new one for more."
    )
    methods = forms.MultipleChoiceField(
        label="How to degrade the outputs",
        widget=forms.CheckboxSelectMultiple,
        choices=[
            ("swap_phrase", "Swap in a phrase from another item"),
            ("truncate", "Cut the second half"),
            ("shuffle_sentences", "Shuffle the sentences"),
            ("repeat_sentence", "Say a sentence twice"),
        ],
    )


class RepeatControlsForm(forms.Form):
    n = forms.IntegerField(
        label="Items to repeat",
        min_value=1,
        max_value=10_000,
        help_text="A rater who judged one gets it again a few screens later (pairwise: sides swapped).",
    )
    seed = forms.IntegerField(label="Random seed", initial=0, help_text="The same seed picks the same items.")
