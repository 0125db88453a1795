"""Degraded controls, as WMT's direct assessment uses "bad references" [1]: a damaged copy of a real item,
served as an ordinary item, that a careful rater scores lower than the original.

Damage methods (each on one output text, drawn with a seeded ``random.Random``, so the same seed gives
the same copies):

- ``swap_phrase``: an inner run of about a quarter of the words is replaced by a run of the same length
  from another item's output;
- ``truncate``: the second half of the words is cut;
- ``shuffle_sentences``: the sentences are put in another order (the words, for a single sentence);
- ``repeat_sentence``: one sentence is said twice.

Copies are served at random positions among each rater's screens (annotation.services.assignment), not
after the work they were copied from. For ``likert`` and ``rankme`` every output of the copy is damaged
(the systems keep their names, so a copy compares output by output with its original). For ``pairwise``
the copy puts the original's first output against its own damaged version, named ``"<system> (degraded)"``;
the intact side should win.

[1] Graham, Baldwin, Moffat, Zobel (2017), "Can machine translation systems be evaluated by the crowd
    alone?", Natural Language Engineering 23(1). https://doi.org/10.1017/S1351324915000339
"""

import random
import re
from functools import partial

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F

from annotation.conversations import assistant_turns, turns_from_json, turns_text
from annotation.models import Item, Output, Project, ProposedSpan
from annotation.services.project import project_settings_check
from annotation.task_types import REGISTRY
from annotation.task_types.error_spans import damaged_region
from audit.services import audit_record

METHODS = ("swap_phrase", "truncate", "shuffle_sentences", "repeat_sentence")
DEGRADED_SUFFIX = " (degraded)"
MAX_CONTROLS = 10_000

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(text.strip()) if s]


def _reorder(parts: list[str], rng: random.Random) -> list[str]:
    """A shuffle that differs from the given order whenever the parts are not all equal."""
    if len(set(parts)) < 2:
        return parts
    shuffled = parts[:]
    while shuffled == parts:
        rng.shuffle(shuffled)
    return shuffled


def degrade(text: str, method: str, rng: random.Random, donor: str = "") -> str:
    """``text`` damaged by ``method`` (see the module docstring); ``donor`` feeds ``swap_phrase``."""
    words = text.split()
    if method == "swap_phrase":
        donor_words = donor.split()
        span = max(1, len(words) // 4)
        if len(words) < 3 or len(donor_words) < span:
            return degrade(text, "truncate", rng)
        start = rng.randrange(1, len(words) - span) if len(words) - span > 1 else 0  # inner: not the first word
        d = rng.randrange(0, len(donor_words) - span + 1)
        return " ".join(words[:start] + donor_words[d : d + span] + words[start + span :])
    if method == "truncate":
        if len(words) < 2:
            return text[: max(1, len(text) // 2)]
        return " ".join(words[: len(words) // 2])
    if method == "shuffle_sentences":
        sentences = _sentences(text)
        if len(sentences) >= 2 and len(set(sentences)) >= 2:
            return " ".join(_reorder(sentences, rng))
        return " ".join(_reorder(words, rng)) if len(set(words)) >= 2 else degrade(text, "truncate", rng)
    if method == "repeat_sentence":
        sentences = _sentences(text) or [text]
        k = rng.randrange(len(sentences))
        return " ".join(sentences[: k + 1] + sentences[k:])
    raise ValueError(f"unknown damage method {method!r}; the methods are {', '.join(METHODS)}")


def _copy_proposals(originals: list[Output], copies: list[Output], *, damaged: bool) -> None:
    """A model's proposed spans (ESA-AI) carried from each original output to its copy of the same system, so a
    copy is reviewed as its original is: a repeat gets them all; a ``damaged`` copy those clear of the damage
    (moved by the length the damage added or took), since one over it would point the rater at the damage."""
    by_system = {o.system: o for o in originals}
    rows = []
    for copy in copies:
        original = by_system.get(copy.system)
        if original is None:
            continue
        (_, copy_end), (start, end) = damaged_region(original.text, copy.text) if damaged else ((0, 0), (0, 0))
        for p in original.proposed_spans.all():
            shift = 0
            if damaged and p.side == "target" and p.end > start:
                if p.start < end or (p.start == end and p.end == p.start):
                    continue
                shift = copy_end - end
            rows.append(
                ProposedSpan(
                    output=copy,
                    side=p.side,
                    start=p.start + shift,
                    end=p.end + shift,
                    severity=p.severity,
                    category=p.category,
                )
            )
    ProposedSpan.objects.bulk_create(rows)


@transaction.atomic
def degraded_controls_create(
    *, project: Project, n: int, seed: int = 0, methods: tuple[str, ...] | list[str] = METHODS, by=None
) -> list[Item]:
    """Adds ``n`` degraded copies of distinct real items (drawn with ``seed``), methods taken in turn.

    Raises ValidationError when there are too few real items, a method is unknown, or the task type's copies would
    tell nothing (its ``degraded_note`` says why).
    """
    note = REGISTRY[project.task_type].degraded_note
    if note:
        raise ValidationError({"n": note})
    unknown = [m for m in methods if m not in METHODS]
    if unknown or not methods:
        raise ValidationError({"methods": f"unknown {unknown}; choose from {', '.join(METHODS)}"})
    if not 1 <= n <= MAX_CONTROLS:
        raise ValidationError({"n": f"from 1 to {MAX_CONTROLS}"})
    # Outputs are damaged as plain text: a copy of a whole-conversation output would show as flat text where its
    # original shows a transcript, telling the rater it is a control; such items are not copied. A project rating
    # per turn has only conversation outputs: there each assistant turn is damaged, and the copy keeps its turns.
    per_turn = project.rating_unit != Project.RatingUnit.CONVERSATION
    originals = Item.objects.filter(
        project=project, gold__isnull=True, degraded_from__isnull=True, repeat_of__isnull=True
    )
    if not per_turn:
        originals = originals.exclude(outputs__turns__isnull=False)
    originals = list(originals.prefetch_related("outputs__proposed_spans").order_by("id"))
    if len(originals) < max(n, 2):
        raise ValidationError(
            {
                "n": f"the project has {len(originals)} real items; each copy needs its own "
                "original and another item to borrow phrases from, so at most "
                f"{len(originals) if len(originals) > 1 else 0} copies"
            }
        )
    rng, task_type = random.Random(seed), REGISTRY[project.task_type]
    chosen = rng.sample(range(len(originals)), n)
    taken = set(Item.objects.filter(project=project, degraded_from__isnull=False).values_list("external_id", flat=True))
    copies = []
    for k, index in enumerate(chosen):
        original = originals[index]
        other = rng.randrange(len(originals) - 1)
        donor = originals[other + (other >= index)]
        donor_text = " ".join(o.text for o in donor.outputs.all())
        method = methods[k % len(methods)]
        external_id = f"{original.external_id}~degraded-{seed}-{k}"
        if external_id in taken:
            raise ValidationError({"seed": f"copies with seed {seed} exist already; use another seed"})
        damage = partial(degrade, method=method, rng=rng, donor=donor_text)
        if per_turn:
            texts, turns = _damaged_turns(list(original.outputs.all()), damage, task_type)
        else:
            texts = task_type.degraded_outputs(
                [(o.system, o.text) for o in original.outputs.all()], damage, DEGRADED_SUFFIX
            )
            turns = [None] * len(texts)
        copy = Item.objects.create(
            project=project,
            external_id=external_id,
            input=original.input,
            turns=original.turns,
            references=original.references,
            subgroup=original.subgroup,
            degraded_from=original,
            n_target=max(original.n_target, 1),
            meta={"control": "degraded", "method": method, "original": original.external_id, "seed": seed},
        )
        outputs = Output.objects.bulk_create(
            [Output(item=copy, position=p, system=s, text=t, turns=turns[p]) for p, (s, t) in enumerate(texts)]
        )
        _copy_proposals(list(original.outputs.all()), outputs, damaged=True)
        copies.append(copy)
    Project.objects.filter(pk=project.pk).update(n_degraded=F("n_degraded") + n)
    audit_record(
        actor=by,
        action="controls.degraded_create",
        project=project,
        target=f"{n} copies",
        detail={"n": n, "seed": seed, "methods": list(methods)},
    )
    return copies


def _damaged_turns(outputs: list[Output], damage, task_type) -> tuple[list[tuple[str, str]], list[list[dict]]]:
    """The (system, text) and turns of a copy's conversation ``outputs`` with each assistant turn damaged as the
    task type damages an output's text."""
    slots = [(o, k) for o in outputs for k in assistant_turns(o.turns)]
    damaged = task_type.degraded_outputs([(o.system, o.turns[k]["text"]) for o, k in slots], damage, DEGRADED_SUFFIX)
    turns = {o.pk: [dict(t) for t in o.turns] for o in outputs}
    for (o, k), (_, text) in zip(slots, damaged, strict=True):
        turns[o.pk][k]["text"] = text
    return (
        [(o.system, turns_text(turns_from_json(turns[o.pk]))) for o in outputs],
        [turns[o.pk] for o in outputs],
    )


@transaction.atomic
def repeat_controls_create(*, project: Project, n: int, seed: int = 0, by=None) -> list[Item]:
    """Adds repeat copies of ``n`` distinct real items (drawn with ``seed``): the same input and outputs,
    served (at the project's repeat rate) only to raters who judged the original at least
    ``REPEAT_GAP`` screens before, pairwise with the sides the rater saw swapped."""
    originals = list(
        Item.objects.filter(project=project, gold__isnull=True, degraded_from__isnull=True, repeat_of__isnull=True)
        .prefetch_related("outputs__proposed_spans")
        .order_by("id")
    )
    if not 1 <= n <= min(len(originals), MAX_CONTROLS):
        raise ValidationError({"n": f"from 1 to the project's {len(originals)} real items"})
    rng = random.Random(seed)
    taken = set(Item.objects.filter(project=project, repeat_of__isnull=False).values_list("external_id", flat=True))
    copies = []
    for k, index in enumerate(sorted(rng.sample(range(len(originals)), n))):
        original = originals[index]
        external_id = f"{original.external_id}~repeat-{seed}-{k}"
        if external_id in taken:
            raise ValidationError({"seed": f"repeats with seed {seed} exist already; use another seed"})
        copy = Item.objects.create(
            project=project,
            external_id=external_id,
            input=original.input,
            turns=original.turns,
            references=original.references,
            subgroup=original.subgroup,
            repeat_of=original,
            n_target=0,
            meta={"control": "repeat", "original": original.external_id, "seed": seed},
        )
        outputs = Output.objects.bulk_create(
            [
                Output(item=copy, position=o.position, system=o.system, text=o.text, turns=o.turns)
                for o in original.outputs.all()
            ]
        )
        _copy_proposals(list(original.outputs.all()), outputs, damaged=False)
        copies.append(copy)
    audit_record(
        actor=by, action="controls.repeat_create", project=project, target=f"{n} copies", detail={"n": n, "seed": seed}
    )
    return copies


# The control settings a lead sets on the quality-control page (the project's other settings are the console's).
CONTROL_SETTINGS = ("training_items", "training_pass_mark", "gold_rate", "repeat_rate")


@transaction.atomic
def project_controls_update(*, project: Project, by, **settings) -> Project:
    """Sets the number of training screens, the qualification gate's pass mark and the gold and repeat rates
    (CONTROL_SETTINGS); raises ValidationError by field, nothing changed. They may change while raters work:
    each rater's plan is read afresh on every screen, and a gate already decided stays decided."""
    unknown = set(settings) - set(CONTROL_SETTINGS)
    if unknown:
        raise ValidationError({"settings": f"unknown settings {sorted(unknown)}; they are {list(CONTROL_SETTINGS)}"})
    project_settings_check(**settings)
    if settings.get("gold_rate", project.gold_rate) + settings.get("repeat_rate", project.repeat_rate) >= 1:
        raise ValidationError(
            {
                "repeat_rate": "the gold and repeat rates together must stay below 100 %, or no "
                "screen is left for the real work"
            }
        )
    project = Project.objects.select_for_update().get(pk=project.pk)
    changed = {
        name: [getattr(project, name), value] for name, value in settings.items() if getattr(project, name) != value
    }
    for name, value in settings.items():
        setattr(project, name, value)
    project.full_clean(exclude=["created_by"])
    project.save(update_fields=list(settings))
    if changed:
        audit_record(
            actor=by, action="controls.settings", project=project, target=project.name, detail={"changed": changed}
        )
    return project
