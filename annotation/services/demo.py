"""A demo deployment: a lead, four raters and one small project per task type, with items and outputs
generated here (seeded), and three weeks of judgments from simulated raters of different quality (one of
them careless), so a new user sees every screen, and the dashboards have something real to show."""

import heapq
import io
import json
import random
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from annotation.conversations import assistant_turns
from annotation.models import Assignment, Membership, Project
from annotation.task_types import REGISTRY

from .assignment import assignment_next_for_rater
from .demo_conversations import CHAT_QUALITY, demo_conversation_items
from .item_import import item_import
from .judgment_submit import judgment_submit
from .project import project_create

# Source documents: a fact (who did what), why, a quote, and what follows, so that the summaries below
# can be faithful, vague or wrong about the same facts.
ACTORS = [
    ("The city council", "council members"),
    ("The regional hospital", "its board"),
    ("The university library", "the library's director"),
    ("The national weather service", "forecasters"),
    ("A local football club", "the club's coach"),
    ("The harbour authority", "port officials"),
    ("The state orchestra", "its conductor"),
    ("A software startup", "the company's founder"),
]
ACTIONS = [
    ("approved", "a plan to extend opening hours to midnight"),
    ("postponed", "the move to a new building by a year"),
    ("launched", "a free app that shows waiting times"),
    ("cancelled", "its summer festival"),
    ("doubled", "the budget for its youth programme"),
    ("announced", "a partnership with two neighbouring towns"),
]
REASONS = [
    "after months of complaints from residents",
    "because costs rose by a third",
    "following a survey of 2,000 visitors",
    "to make up for staff shortages",
    "after a vote of seven to two",
    "as part of a five-year strategy",
]
QUOTES = [
    "We listened, and this is the result",
    "It was not an easy decision",
    "We expect the first changes within weeks",
    "Nobody should have to wait this long",
]
FOLLOWS = [
    "The change takes effect in March.",
    "Critics say the plan does not go far enough.",
    "A public meeting is planned for next month.",
    "Details will be published online on Friday.",
]
WRONG_NUMBERS = ["by half", "to twenty people", "for the third time", "in 2019"]
SUBGROUPS = ["news", "health", "culture"]
SYSTEMS = ["extractive", "abstractive", "baseline"]


def _document(rng: random.Random) -> dict:
    (actor, speaker), (verb, what) = rng.choice(ACTORS), rng.choice(ACTIONS)
    reason, quote, follow = rng.choice(REASONS), rng.choice(QUOTES), rng.choice(FOLLOWS)
    return {
        "actor": actor,
        "speaker": speaker,
        "verb": verb,
        "what": what,
        "reason": reason,
        "text": f'{actor} {verb} {what} on Tuesday, {reason}. "{quote}," said one of {speaker}. {follow}',
        "wrong": rng.choice(WRONG_NUMBERS),
    }


def _summary(system: str, doc: dict) -> str:
    """extractive: the lead sentence, faithful; abstractive: fluent, loses the reason; baseline: garbled,
    with an invented detail."""
    if system == "extractive":
        return doc["text"].split(". ")[0] + "."
    if system == "abstractive":
        return f"{doc['actor']} has {doc['verb']} {doc['what']}, {doc['speaker']} said."
    return f"{doc['actor'].lower()} {doc['what']} {doc['verb']} {doc['wrong']} tuesday"


# Each system's typical score on each demo criterion (1–5; RankME's slider and pairwise preferences derive from it)
QUALITY = {
    "extractive": {"fluency": 4.0, "faithfulness": 4.4, "overall": 4.0},
    "abstractive": {"fluency": 4.4, "faithfulness": 3.0, "overall": 3.2},
    "baseline": {"fluency": 1.8, "faithfulness": 1.9, "overall": 1.8},
    **CHAT_QUALITY,
}


# Simulated raters: (username, noise of their 1–5 scores, share of answers given at random, how much longer
# than the others they stay away between sittings)
RATERS = [("rater1", 0.35, 0.0, 1.0), ("rater2", 0.5, 0.0, 1.0), ("rater3", 0.8, 0.05, 1.2), ("rater4", 0.0, 1.0, 3.0)]
WEEKS = 3
SITTING_GAP_HOURS = (70, 170)  # between a rater's sittings: about three quarters of the work is done by now


def demo_items(task_type: str, n_items: int, seed: int, systems: list[str] | None = None) -> list[dict]:
    rng = random.Random(seed)
    systems = systems or SYSTEMS[: REGISTRY[task_type].setup.sample_outputs]
    lines = []
    for i in range(n_items):
        doc = _document(rng)
        lines.append(
            {
                "external_id": f"demo-{task_type}-{i + 1:03d}",
                "input": doc["text"],
                "references": [f"{doc['actor']} {doc['verb']} {doc['what']} {doc['reason']}."],
                "outputs": [{"system": s, "text": _summary(s, doc)} for s in systems],
                "subgroup": SUBGROUPS[i % len(SUBGROUPS)],
                "meta": {"generated": True, "seed": seed},
            }
        )
    return lines


def _score(item_id: int, system: str, criterion: str, noise: float, careless: float, rng: random.Random) -> float:
    """A simulated 1–5 score: the output's own quality (the system's typical score, shifted per item, the
    same for every rater), blurred by the rater's noise; a careless rater answers at random."""
    if rng.random() < careless:
        return float(rng.randint(1, 5))
    typical = QUALITY[system].get(criterion, QUALITY[system]["overall"])
    own = typical + random.Random(f"{item_id}-{system}-{criterion}").gauss(0, 1.0)
    return float(min(5, max(1, round(rng.gauss(own, noise)))))


def _answers(assignment: Assignment, noise: float, careless: float, rng: random.Random) -> list[dict]:
    """A simulated rater's values on one screen; in a project rating per turn, each assistant turn of each output
    gets the criterion too (scored like a whole output of its system), and the whole output when rating both."""
    project = assignment.project
    outputs = {
        p: (system, turns) for p, system, turns in assignment.item.outputs.values_list("position", "system", "turns")
    }
    shown = [outputs[p] for p in (assignment.shown_order or sorted(outputs))]
    unit = project.rating_unit
    values = []
    for criterion in project.criteria.order_by("position"):
        if unit != Project.RatingUnit.TURN:
            scores = [_score(assignment.item_id, s, criterion.name, noise, careless, rng) for s, _ in shown]
            values += REGISTRY[project.task_type].setup.demo.answers(criterion.name, scores, rng)
        if unit == Project.RatingUnit.CONVERSATION:
            continue
        for position, (system, turns) in enumerate(shown):
            for turn in assistant_turns(turns):
                score = _score(assignment.item_id, system, f"{criterion.name}@{turn}", noise, careless, rng)
                values.append({"criterion": criterion.name, "position": position, "turn": turn, "value": int(score)})
    return values


def _simulate_judging(project: Project, raters: list, rng: random.Random, now: datetime) -> None:
    """The raters take turns, a few screens a sitting, over the last WEEKS weeks, until ``now``: the study
    is in progress."""
    sittings = [(now - timedelta(weeks=WEEKS) + timedelta(hours=rng.uniform(0, 72)), k) for k in range(len(raters))]
    heapq.heapify(sittings)
    while sittings:
        when, k = heapq.heappop(sittings)
        _, noise, careless, pace = RATERS[k]
        for _ in range(rng.randint(2, 5)):
            assignment = assignment_next_for_rater(project_id=project.pk, rater=raters[k], now=when, rng=rng)
            if assignment is None:
                break
            seconds = rng.uniform(3, 8) if careless > 0.5 else rng.uniform(20, 70)
            when += timedelta(seconds=seconds)
            judgment_submit(
                rater=raters[k],
                assignment_id=assignment.pk,
                duration_ms=int(seconds * 1000),
                values=_answers(assignment, noise, careless, rng),
                now=when,
            )
        else:
            when += timedelta(hours=pace * rng.uniform(*SITTING_GAP_HOURS))
            if when < now:
                heapq.heappush(sittings, (when, k))


@transaction.atomic
def demo_setup(
    *, lead_username: str, lead_password: str, rater_password: str, n_items: int = 40, now: datetime | None = None
) -> list[Project]:
    """Creates the demo accounts and projects with their simulated judgments, or returns the existing ones
    (idempotent). Agreement is not computed here (annotation sits below agreement): the demo command does it."""
    User = get_user_model()
    lead = User.objects.filter(username=lead_username).first()
    if lead is None:
        lead = User.objects.create_superuser(lead_username, password=lead_password)
    raters = []
    for username, *_ in RATERS:
        rater = User.objects.filter(username=username).first()
        if rater is None:
            rater = User.objects.create_user(username, password=rater_password)
        raters.append(rater)
    projects, now = [], now or timezone.now()
    # Studies of conversations rated per turn come after all the others: simulated scores are seeded by item id,
    # so the older demos keep their items' ids, and their figures, whatever is added.
    per_turn_chats = []
    for seed, (task_type, t) in enumerate(REGISTRY.items(), start=1):
        demo = t.setup.demo
        lines = demo_items(task_type, n_items, seed, SYSTEMS[: demo.n_systems])
        projects.append(
            _demo_project(demo.name, task_type, demo.criteria, demo.instructions, lines, seed, lead, raters, now)
        )
        if demo.conversation_name:
            chat = (task_type, demo, seed + len(REGISTRY))
            if demo.conversation_rating_unit == Project.RatingUnit.CONVERSATION:
                projects.append(_chat_project(*chat, n_items, lead, raters, now))
            else:
                per_turn_chats.append(chat)
    projects += [_chat_project(*chat, n_items, lead, raters, now) for chat in per_turn_chats]
    return projects


def _chat_project(task_type: str, demo, seed: int, n_items: int, lead, raters: list, now: datetime) -> Project:
    """The type's demo study of conversations (``demo.conversation_name``)."""
    per_turn = demo.conversation_rating_unit != Project.RatingUnit.CONVERSATION
    lines = demo_conversation_items(f"demo-chat-{task_type}", n_items, seed, whole=per_turn)
    return _demo_project(
        demo.conversation_name,
        task_type,
        demo.criteria,
        demo.conversation_instructions,
        lines,
        seed,
        lead,
        raters,
        now,
        rating_unit=demo.conversation_rating_unit,
    )


def _demo_project(
    name: str,
    task_type: str,
    criteria,
    instructions: str,
    lines: list[dict],
    seed: int,
    lead,
    raters: list,
    now: datetime,
    rating_unit: str = Project.RatingUnit.CONVERSATION,
) -> Project:
    """The demo project called ``name``, made with its items and simulated judgments unless it exists."""
    project = Project.objects.filter(name=name).first()
    if project is not None:
        return project
    project = project_create(
        created_by=lead,
        name=name,
        task_type=task_type,
        criteria=[dict(c) for c in criteria],
        instructions=instructions,
        raters_per_item=2,
        double_annotation_share=0.6,
        show_reference=False,
        rating_unit=rating_unit,
    )
    body = "\n".join(json.dumps(line, ensure_ascii=False) for line in lines).encode()
    item_import(project=project, stream=io.BytesIO(body), fmt="jsonl", by=lead, file_name="demo items")
    # Seeded orders too (a real membership draws its own), so the demo is the same study on every run.
    order_rng = random.Random(f"order-{seed}")
    for rater in raters:
        Membership.objects.get_or_create(
            project=project,
            user=rater,
            defaults={"role": Membership.Role.RATER, "order_seed": order_rng.getrandbits(62)},
        )
    _simulate_judging(project, raters, random.Random(seed), now)
    return project
