"""What the error-span types (ESA, MQM) share: the typology and weights a project's ``task_config`` holds,
and the coding of an answer per output::

    {"spans": [{"start", "end", "severity", "category"?, "side"?, "origin"?, "proposal"?}],
     "no_error": bool, "score": number (ESA only)}

Offsets are Unicode code points (Python ``str`` indexes) of the text as imported, ``[start, end)``;
``start == end`` marks something missing at that point. ``side`` is "target" (the output, the default) or
"source" (the item's input, MQM's source errors). ``origin`` is "added" (the default) or how the rater answered
a model's proposal: "accepted" (as proposed), "edited", "rejected" (kept with the proposal's offsets);
``proposal`` is then the proposal's index in the output's ``proposed_spans`` on the screen.
"""

import json
import math
from dataclasses import replace

from core.outside_text import MAX_INTEGER, OutsideValueError, check_json

from .base import (
    Coded,
    CriterionScale,
    Proposal,
    Span,
    TaskType,
    TaskTypeError,
    check_gold_criteria,
    check_system,
    number,
)
from .facts import overlaps

TARGET, SOURCE = "target", "source"
ADDED, ACCEPTED, EDITED, REJECTED = "added", "accepted", "edited", "rejected"
ORIGINS = (ADDED, ACCEPTED, EDITED, REJECTED)
SPAN_FIELDS = ("start", "end", "severity", "category", "side", "origin", "proposal")
# A rater marking more errors than this in one output is not annotating it (WMT's files hold at most ~30).
MAX_SPANS = 100
MAX_NAME = 100
# ErrorSpan.category and ProposedSpan.category hold at most this many characters: "<group>/<child>" included.
MAX_CATEGORY = 2 * MAX_NAME

# The MQM core typology with WMT's categories (Freitag et al. 2021, Table 10), as the rater widget's
# DEFAULT_TYPOLOGY has it: a category is "<group>/<child>", or a group's name where it has no children.
# "Non-translation" marks the whole output; "Source error" is marked in the source.
DEFAULT_TYPOLOGY = (
    {"name": "Accuracy", "children": ["Addition", "Omission", "Mistranslation", "Untranslated text"]},
    {
        "name": "Fluency",
        "children": ["Punctuation", "Spelling", "Grammar", "Register", "Inconsistency", "Character encoding"],
    },
    {"name": "Terminology", "children": ["Inappropriate for context", "Inconsistent use"]},
    {"name": "Style", "children": ["Awkward"]},
    {
        "name": "Locale convention",
        "children": [
            "Address format",
            "Currency format",
            "Date format",
            "Name format",
            "Telephone format",
            "Time format",
        ],
    },
    {"name": "Other"},
    {"name": "Non-translation", "whole_segment": True},
    {"name": "Source error", "source": True},
)
# WMT's weights (Freitag et al. 2021; google/wmt-mqm-human-evaluation): rules in order, the first whose
# severity and category fit a span gives its weight (a rule's category covers its children too). Critical
# weighs as major, as evaluation.stats.error_spans.WMT_MQM_WEIGHTS and WMT24's humeval/tools.py do.
WMT_WEIGHTS = (
    {"category": "Non-translation", "weight": 25.0},
    {"severity": "minor", "category": "Fluency/Punctuation", "weight": 0.1},
    {"severity": "minor", "weight": 1.0},
    {"severity": "major", "weight": 5.0},
    {"severity": "critical", "weight": 5.0},
)
MAX_WEIGHT = 1e6


def _name(value, what: str) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_NAME or "/" in value:
        raise TaskTypeError(f"{what} must be a name of 1 to {MAX_NAME} characters without '/', got {value!r}")
    return value


def _keys(value, allowed: tuple[str, ...], what: str) -> dict:
    if not isinstance(value, dict):
        raise TaskTypeError(f"{what} must be an object, got {value!r}")
    unknown = sorted(set(value) - set(allowed))
    if unknown:
        raise TaskTypeError(f"{what}: unknown field {', '.join(map(repr, unknown))}; fields are {', '.join(allowed)}")
    return value


def typology_normalise(raw) -> list[dict]:
    """An MQM typology: a list of ``{name, children?}`` groups, at most one ``{name, whole_segment: true}`` and
    one ``{name, source: true}``."""
    if not isinstance(raw, list | tuple) or not raw:
        raise TaskTypeError("task_config.typology must be a non-empty list of {name, children?} categories")
    out, seen, special = [], set(), {"whole_segment": 0, "source": 0}
    for k, node in enumerate(raw):
        what = f"task_config.typology[{k}]"
        node = _keys(node, ("name", "children", "whole_segment", "source"), what)
        name = _name(node.get("name"), f"{what}.name")
        if name in seen:
            raise TaskTypeError(f"{what}.name: {name!r} is named twice")
        seen.add(name)
        entry = {"name": name}
        for flag in special:
            if node.get(flag) not in (None, False, True):
                raise TaskTypeError(f"{what}.{flag} must be true or false")
            if node.get(flag):
                special[flag] += 1
                if special[flag] > 1:
                    raise TaskTypeError(f"{what}: only one category may be {flag}")
                entry[flag] = True
        children = node.get("children") or []
        if entry.keys() - {"name"} and children:
            raise TaskTypeError(f"{what}: a whole-segment or source category has no children")
        if len(entry) > 2:
            raise TaskTypeError(f"{what}: a category is whole_segment or source, not both")
        if not isinstance(children, list):
            raise TaskTypeError(f"{what}.children must be a list of names")
        names = [_name(c, f"{what}.children[{j}]") for j, c in enumerate(children)]
        for j, child in enumerate(names):
            if len(name) + 1 + len(child) > MAX_CATEGORY:
                raise TaskTypeError(
                    f"{what}.children[{j}]: the category '<group>/<child>' is {len(name) + 1 + len(child)} "
                    f"characters, longer than {MAX_CATEGORY}; shorten the group's or the child's name"
                )
        if len(set(names)) != len(names):
            raise TaskTypeError(f"{what}.children: a name is given twice")
        if names:
            entry["children"] = names
        out.append(entry)
    return out


def categories_of(typology: list[dict]) -> dict[str, str]:
    """Every category a span may take, mapped to its kind: "target", "whole_segment" or "source"."""
    out = {}
    for node in typology:
        kind = "whole_segment" if node.get("whole_segment") else SOURCE if node.get("source") else TARGET
        for child in node.get("children") or [None]:
            out[node["name"] if child is None else f"{node['name']}/{child}"] = kind
    return out


def _covers(rule: dict, severity: str, category: str) -> bool:
    wanted = rule.get("category")
    return rule.get("severity") in (None, severity) and (
        wanted is None or category == wanted or category.startswith(wanted + "/")
    )


def weight_of(weights: list[dict], severity: str, category: str) -> float:
    """The weight of a span: the first rule covering its severity and category (config normalisation checked
    that one does)."""
    return next(rule["weight"] for rule in weights if _covers(rule, severity, category))


def weights_normalise(raw, severities: list[str], categories: dict[str, str]) -> list[dict]:
    """Ordered rules ``{severity?, category?, weight}``; every severity of every category must be covered."""
    if not isinstance(raw, list | tuple) or not raw:
        raise TaskTypeError("task_config.weights must be a non-empty list of {severity?, category?, weight} rules")
    groups = {c.split("/")[0] for c in categories}
    out = []
    for k, rule in enumerate(raw):
        what = f"task_config.weights[{k}]"
        rule = _keys(rule, ("severity", "category", "weight"), what)
        entry = {}
        for name in ("severity", "category"):
            if rule.get(name) is not None and not isinstance(rule[name], str):
                raise TaskTypeError(f"{what}.{name} must be a name, got {rule[name]!r}")
        if rule.get("severity") is not None:
            if rule["severity"] not in severities:
                raise TaskTypeError(
                    f"{what}.severity: unknown severity {rule['severity']!r}; severities are {', '.join(severities)}"
                )
            entry["severity"] = rule["severity"]
        if rule.get("category") is not None:
            if rule["category"] not in categories and rule["category"] not in groups:
                raise TaskTypeError(f"{what}.category: {rule['category']!r} is not a category of the typology")
            entry["category"] = rule["category"]
        w = rule.get("weight")
        if isinstance(w, bool) or not isinstance(w, int | float) or not math.isfinite(w) or not 0 <= w <= MAX_WEIGHT:
            raise TaskTypeError(f"{what}.weight must be a number from 0 to {MAX_WEIGHT:g}, got {w!r}")
        entry["weight"] = float(w)
        out.append(entry)
    for category in categories:
        for severity in severities:
            if not any(_covers(rule, severity, category) for rule in out):
                raise TaskTypeError(
                    f"task_config.weights: no rule weighs a {severity} {category!r} error; "
                    "add one (a rule without severity or category covers them all)"
                )
    return out


def _gold_words(expected: dict) -> str:
    """A gold answer as a lead reads it: "no error", or the spans to find, and the score range."""
    parts = ["no error"] if expected.get("no_error") else []
    if expected.get("spans"):
        parts.append(
            "find "
            + "; ".join(
                f"[{g['start']}, {g['end']})" + "".join(f" {g[k]}" for k in ("side", "severity", "category") if k in g)
                for g in expected["spans"]
            )
        )
    if "score" in expected:
        parts.append(f"score {expected['score'][0]:g}–{expected['score'][1]:g}")
    return ", ".join(parts)


def _offset(value, what: str) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or (isinstance(value, int) and abs(value) > MAX_INTEGER)  # before isfinite, which overflows on a huge int
        or not math.isfinite(value)
        or not float(value).is_integer()
    ):
        raise TaskTypeError(f"{what} must be a whole number of code points, got {value!r}")
    return int(value)


def damaged_region(original: str, copy: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """Where a damaged ``copy`` differs from its ``original``: ([start, end) in the copy, the same in the original),
    between their longest common prefix and suffix (empty where something was only cut)."""
    n = min(len(original), len(copy))
    prefix = next((k for k in range(n) if original[k] != copy[k]), n)
    suffix = next((k for k in range(n - prefix) if original[-1 - k] != copy[-1 - k]), n - prefix)
    return (prefix, len(copy) - suffix), (prefix, len(original) - suffix)


def _marks(region: tuple[int, int], spans) -> bool:
    return any(s.side == TARGET and s.origin != REJECTED and overlaps(*region, s.start, s.end) for s in spans)


def _gold_span_hit(expected: dict, span: Span) -> bool:
    """A rater's span meets a gold span: the same side, overlapping, and the gold's severity and category where
    it gives them (a category also meets its own subcategories)."""
    category = expected.get("category")
    return (
        span.side == expected.get("side", TARGET)
        and overlaps(expected["start"], expected["end"], span.start, span.end)
        and expected.get("severity") in (None, span.severity)
        and (category is None or span.category == category or span.category.startswith(category + "/"))
    )


class ErrorSpanType(TaskType):
    """A task type whose answer on an output is a set of error spans with a number (ESA, MQM).

    Gold (``{"<criterion>": {"<system>": {"spans": [...], "score": [low, high], "no_error": true}}}``, the system
    left out for an item with one output): ``spans`` are errors that must be marked; a rater's span counts for
    one when it is on the same side and overlaps it. Severity and category are compared only where the gold span
    gives them: raters agree on where errors are far more than on how severe they are (Freitag et al. 2021,
    Kocmi et al. 2024), so a gold error is by default "found", whatever severity it was given. ``no_error``:
    the output has none, and a correct answer marks none. ``score`` (ESA): the range the score must fall in.
    """

    level_of_measurement = "interval"
    min_outputs = 1
    max_criteria = 1
    position_bias_note = (
        "Position bias does not apply to error spans: each output's errors are marked in that "
        "output alone, so no output wins or loses by the place it is shown in."
    )
    reads_texts = True
    # The fields of an answer beside spans and no_error.
    extra_fields: tuple[str, ...] = ()

    def severities(self, config: dict) -> list[str]:
        return config["severities"]

    def categories(self, config: dict) -> dict[str, str]:
        """The categories a span may take (kind per name, see categories_of); empty: spans take none."""
        return {}

    def value_of(self, spans: tuple[Span, ...], answer: dict, criterion: CriterionScale, config: dict) -> float:
        """The coded value of an answer whose ``spans`` were checked."""
        raise NotImplementedError

    def widget_config(self, question: dict, config: dict) -> dict:
        """The widget's settings (error_spans.js: protocol, severities, typology, the model's proposals, the
        hidden input's name) for one output of a screen."""
        return {
            "protocol": self.slug,
            "input": question["field"],
            "severities": self.severities(config),
            "prefilled": question["output"].get("proposed_spans", []),
        }

    def question_fields(self, question, modulus, config):
        """``widget``: the widget's settings as JSON; ``state``: the earlier answer as the widget restores it (a
        stored answer, or the state a refused form posted)."""
        config = self.normalise_config(config or None)
        answer = question["answer"]
        if isinstance(answer, dict):
            answer = json.dumps(
                {
                    "protocol": self.slug,
                    "no_error": answer["no_error"],
                    "spans": [
                        {
                            "side": s["side"],
                            "start": s["start"],
                            "end": s["end"],
                            "severity": s["severity"],
                            "category": s["category"] or None,
                            "status": s["origin"],
                            **({"proposed": s["proposal"]} if "proposal" in s else {}),
                        }
                        for s in answer["spans"]
                    ],
                    **{name: answer[name] for name in self.extra_fields},
                }
            )
        return {"widget": json.dumps(self.widget_config(question, config)), "state": answer or ""}

    def normalise_gold(self, gold, criteria, systems):
        out = {}
        for name, answer in check_gold_criteria(gold, criteria).items():
            if (
                isinstance(answer, dict)
                and answer.keys() & {"spans", "no_error", *self.gold_extra}
                and len(systems) == 1
            ):
                answer = {systems[0]: answer}
            if not isinstance(answer, dict) or not answer:
                raise TaskTypeError(
                    f"gold.{name} must map system names to {{spans, no_error"
                    f"{''.join(', ' + f for f in self.gold_extra)}}}"
                )
            out[name] = {
                check_system(system, systems, f"gold.{name}"): self._gold_answer(
                    expected, criteria[name], f"gold.{name}.{system}"
                )
                for system, expected in answer.items()
            }
        return out

    # What a gold answer may give beside spans and no_error.
    gold_extra: tuple[str, ...] = ()

    def _gold_answer(self, expected, criterion: CriterionScale, what: str) -> dict:
        expected = _keys(expected, ("spans", "no_error", *self.gold_extra), what)
        out = {}
        if expected.get("no_error") not in (None, False, True):
            raise TaskTypeError(f"{what}.no_error must be true or false")
        spans = expected.get("spans") or []
        if not isinstance(spans, list) or len(spans) > MAX_SPANS:
            raise TaskTypeError(f"{what}.spans must be a list of at most {MAX_SPANS} spans")
        if expected.get("no_error"):
            if spans:
                raise TaskTypeError(f"{what}: no_error with spans; give one or the other")
            out["no_error"] = True
        if spans:
            out["spans"] = [self._gold_span(span, f"{what}.spans[{k}]") for k, span in enumerate(spans)]
        if "score" in self.gold_extra and expected.get("score") is not None:
            bounds = expected["score"]
            if not isinstance(bounds, list) or len(bounds) != 2:
                raise TaskTypeError(f"{what}.score must be [low, high], got {bounds!r}")
            low, high = (number(b, f"{what}.score") for b in bounds)
            if not criterion.scale_min <= low <= high <= criterion.scale_max:
                raise TaskTypeError(
                    f"{what}.score [{low:g}, {high:g}] must run upwards within "
                    f"{criterion.scale_min:g}–{criterion.scale_max:g}"
                )
            out["score"] = [low, high]
        if not out:
            raise TaskTypeError(
                f"{what}: give the spans that must be marked, no_error{''.join(', or ' + f for f in self.gold_extra)}"
            )
        return out

    def _gold_span(self, span, what: str) -> dict:
        span = _keys(span, ("start", "end", "side", "severity", "category"), what)
        side = span.get("side") or TARGET
        if side not in (TARGET, SOURCE):
            raise TaskTypeError(f"{what}.side must be {TARGET!r} or {SOURCE!r}, got {side!r}")
        for end in ("start", "end"):
            if span.get(end) is None:
                raise TaskTypeError(f"{what}.{end} is missing")
        start, stop = _offset(span["start"], f"{what}.start"), _offset(span["end"], f"{what}.end")
        if not 0 <= start <= stop:
            raise TaskTypeError(f"{what}: [{start}, {stop}) must have 0 <= start <= end")
        out = {"start": start, "end": stop}
        if side != TARGET:
            out["side"] = side
        for name in ("severity", "category"):
            if span.get(name) is not None:
                if not isinstance(span[name], str) or not span[name] or len(span[name]) > 2 * MAX_NAME:
                    raise TaskTypeError(f"{what}.{name} must be a name, got {span[name]!r}")
                out[name] = span[name]
        return out

    def check_gold_texts(self, gold, source, outputs):
        for name, per_system in gold.items():
            for system, expected in per_system.items():
                lengths = {TARGET: len(outputs[system]), SOURCE: len(source)}
                for k, span in enumerate(expected.get("spans", [])):
                    side = span.get("side", TARGET)
                    if span["end"] > lengths[side]:
                        raise TaskTypeError(
                            f"gold.{name}.{system}.spans[{k}]: [{span['start']}, {span['end']}) is "
                            f"not within the {'output' if side == TARGET else 'source'} "
                            f"({lengths[side]} code points)"
                        )

    def gold_correct(self, gold, criterion, system, value, spans=(), turn=None):
        """Every gold span met by one of the rater's spans (rejected proposals are not the rater's); with
        ``no_error``, nothing marked; and the score in its range where the gold gives one."""
        expected = (gold.get(criterion) or {}).get(system)
        if expected is None:
            return None
        marked = [s for s in spans if s.origin != REJECTED]
        ok = (
            not marked
            if expected.get("no_error")
            else all(any(_gold_span_hit(g, s) for s in marked) for g in expected.get("spans", []))
        )
        if "score" in expected:
            ok = ok and expected["score"][0] <= value <= expected["score"][1]
        return ok

    def damage_marked(self, original, copy, copy_spans, original_spans):
        """A span over the damage, as DA's degraded references expect a lower score: the copy's spans overlap
        where it differs from the original; and, as the baseline, the rater's spans on the original overlap
        the same place there."""
        in_copy, in_original = damaged_region(original, copy)
        return _marks(in_copy, copy_spans), _marks(in_original, original_spans)

    def feedback(self, expected, given):
        """The gold in words beside the rater's spans (and score), right as gold_correct counts it."""
        if given is None:
            return _gold_words(expected), "—", False
        spans = tuple(
            Span(
                s.get("side") or TARGET,
                s["start"],
                s["end"],
                s["severity"],
                s.get("category") or "",
                s.get("origin") or ADDED,
            )
            for s in given["spans"]
        )
        ok = self.gold_correct({"": {"": expected}}, "", "", given.get("score", 0.0), spans)
        marked = [s for s in spans if s.origin != REJECTED]
        words = (
            "; ".join(
                f"[{s.start}, {s.end}) {s.severity}"
                + (f" {s.category}" if s.category else "")
                + (" in the source" if s.side == SOURCE else "")
                for s in marked
            )
            or "no error"
        )
        if "score" in given:
            words += f", score {given['score']:g}"
        return _gold_words(expected), words, ok

    def gold_on_screen(self, gold, criterion, shown_systems):
        per_system = gold.get(criterion) or {}
        return [
            {"criterion": criterion, "position": p, "value": per_system[s]}
            for p, s in enumerate(shown_systems)
            if s in per_system
        ]

    def gold_rows(self, gold):
        return [
            {"criterion": criterion, "system": system, "expected": _gold_words(expected)}
            for criterion, per_system in gold.items()
            for system, expected in per_system.items()
        ]

    def stored_answer(self, value, spans, proposal_index):
        answer = {
            "spans": [
                {
                    "start": s.start,
                    "end": s.end,
                    "severity": s.severity,
                    "category": s.category,
                    "side": s.side,
                    "origin": s.origin,
                    **({} if s.proposal is None else {"proposal": proposal_index.get(s.proposal)}),
                }
                for s in spans
            ],
            "no_error": all(s.origin == REJECTED for s in spans),
        }
        for name in self.extra_fields:
            answer[name] = value
        return answer

    def adjudication_answer(self, value, spans):
        """The spans the rater marked (not the proposals they rejected), none numbered: how the rater came by a
        span is not the adjudicator's business."""
        marked = tuple(replace(s, origin=ADDED, proposal=None) for s in spans if s.origin != REJECTED)
        answer = self.stored_answer(value, marked, {})
        for span in answer["spans"]:
            del span["origin"]
        return answer

    def answer_words(self, answer, *, source, text):
        marked = []
        for s in answer["spans"]:
            where, marked_in = (" in the source", source) if s["side"] == SOURCE else ("", text)
            category = f" {s['category']}" if s["category"] else ""
            marked.append(f"{s['severity']}{category}{where}: “{marked_in[s['start'] : s['end']]}”")
        extra = [f"{name} {answer[name]:g}" for name in self.extra_fields]
        return "; ".join(marked or ["no error"]) + "".join(f" · {e}" for e in extra)

    def form_value(self, raw: str):
        """The widget's posted state (static/annotation/error_spans.js of this package: spans with ``status`` and
        ``proposed``) as an answer the API takes; a proposal still unanswered keeps its status, which coding
        refuses."""
        try:
            state = json.loads(raw)
        except ValueError:
            return raw
        except RecursionError as exc:
            raise TaskTypeError("value is nested too deeply to be an error-span answer") from exc
        try:
            check_json(state, field="value")
        except OutsideValueError as exc:
            raise TaskTypeError(str(exc)) from exc
        if not isinstance(state, dict) or not isinstance(state.get("spans"), list):
            return state
        answer = {
            "spans": [
                {
                    "start": s.get("start"),
                    "end": s.get("end"),
                    "severity": s.get("severity"),
                    "category": s.get("category") or "",
                    "side": s.get("side"),
                    "origin": s.get("status"),
                    **({"proposal": s["proposed"]} if "proposed" in s else {}),
                }
                if isinstance(s, dict)
                else s
                for s in state["spans"]
            ],
            "no_error": state.get("no_error", False),
        }
        for name in self.extra_fields:
            if state.get(name) is not None:
                answer[name] = state[name]
        return answer

    def normalise_proposals(self, raw, *, config, source, text, what):
        """``[{start, end, severity, category?, side?}]``: a span as an answer gives it, by the project's
        severities and typology (stored with origin "added": no rater has answered it)."""
        if not isinstance(raw, list):
            raise TaskTypeError(f"{what} must be a list of spans, got {raw!r}")
        if len(raw) > MAX_SPANS:
            raise TaskTypeError(f"{what}: at most {MAX_SPANS} spans per output, got {len(raw)}")
        config = config or self.normalise_config(None)
        lengths = {TARGET: len(text), SOURCE: len(source)}
        spans = []
        for k, span in enumerate(raw):
            where = f"{what}[{k}]"
            if isinstance(span, dict) and span.keys() & {"origin", "proposal"}:
                raise TaskTypeError(f"{where}: a proposed span takes no origin or proposal")
            spans.append(self._span(span, where, config, lengths, ()))
        return tuple(spans)

    def code_value(self, value, criterion, systems, system):
        """Reached by an import line carrying a value alone: spans are checked against the output's text."""
        raise TaskTypeError(
            "an error-span answer is checked against the texts it marks: import error-span "
            "studies with the error-span import"
        )

    def code_answer(self, value, criterion, systems, system, *, config, texts):
        if system is None:
            if len(systems) != 1:
                raise TaskTypeError("system: name the output judged (this item has several)")
            system = systems[0]
        if system not in systems:
            raise TaskTypeError(f"system: {system!r} is not a system of this item ({', '.join(map(repr, systems))})")
        config = config or self.normalise_config(None)  # a project saved without its settings reads the defaults
        answer = _keys(value, ("spans", "no_error", *self.extra_fields), "value")
        lengths = {TARGET: len(texts.outputs[system]), SOURCE: len(texts.source)}
        spans = self._spans(answer.get("spans", []), config, lengths, texts.proposals.get(system, ()))
        no_error = answer.get("no_error", False)
        if not isinstance(no_error, bool):
            raise TaskTypeError(f"value.no_error must be true or false, got {no_error!r}")
        marked = sum(s.origin != REJECTED for s in spans)
        if no_error and marked:
            raise TaskTypeError(
                f"value.no_error is true but {marked} error span{'s are' if marked > 1 else ' is'} "
                "marked: remove them or untick no error"
            )
        if not no_error and not marked:
            raise TaskTypeError("value: mark at least one error span, or set no_error to true")
        return Coded(system, self.value_of(spans, answer, criterion, config), "", spans)

    def _spans(self, raw, config: dict, lengths: dict[str, int], proposals: tuple[Proposal, ...]) -> tuple[Span, ...]:
        if not isinstance(raw, list):
            raise TaskTypeError(f"value.spans must be a list of spans, got {raw!r}")
        if len(raw) > MAX_SPANS:
            raise TaskTypeError(f"value.spans: at most {MAX_SPANS} spans per output, got {len(raw)}")
        spans, answered = [], {}
        for k, span in enumerate(raw):
            s = self._span(span, f"value.spans[{k}]", config, lengths, proposals)
            if s.proposal is not None:
                index = next(j for j, p in enumerate(proposals) if p.id == s.proposal)
                if index in answered:
                    raise TaskTypeError(
                        f"value.spans[{k}].proposal: proposal {index} is answered twice "
                        f"(first in value.spans[{answered[index]}])"
                    )
                answered[index] = k
            spans.append(s)
        unanswered = [j for j in range(len(proposals)) if j not in answered]
        if unanswered:
            raise TaskTypeError(
                f"value.spans: proposed span{'s' if len(unanswered) > 1 else ''} "
                f"{', '.join(map(str, unanswered))} not answered: accept, edit or reject each"
            )
        return tuple(spans)

    def _span(self, span, what: str, config: dict, lengths: dict[str, int], proposals: tuple[Proposal, ...]) -> Span:
        span = _keys(span, SPAN_FIELDS, what)
        side = span.get("side") or TARGET
        if side not in (TARGET, SOURCE):
            raise TaskTypeError(f"{what}.side must be {TARGET!r} or {SOURCE!r}, got {side!r}")
        categories = self.categories(config)
        if side == SOURCE and SOURCE not in categories.values():
            raise TaskTypeError(f"{what}.side: spans are marked in the output only here, not in the source")
        for end in ("start", "end"):
            if span.get(end) is None:
                raise TaskTypeError(f"{what}.{end} is missing")
        start, stop = _offset(span["start"], f"{what}.start"), _offset(span["end"], f"{what}.end")
        length = lengths[side]
        if not 0 <= start <= stop <= length:
            raise TaskTypeError(
                f"{what}: [{start}, {stop}) is not within the {'output' if side == TARGET else 'source'}"
                f" ({length} code points; 0 <= start <= end <= {length})"
            )
        for name in ("severity", "category"):
            if span.get(name) is not None and not isinstance(span[name], str):
                raise TaskTypeError(f"{what}.{name} must be a name, got {span[name]!r}")
        severity = span.get("severity")
        if severity not in self.severities(config):
            raise TaskTypeError(
                f"{what}.severity: unknown severity {severity!r}; severities are {', '.join(self.severities(config))}"
            )
        category = span.get("category") or ""
        if categories:
            kind = categories.get(category)
            if kind is None:
                raise TaskTypeError(f"{what}.category: {category!r} is not a category of the project's typology")
            # A source category is marked in the source only; other errors may be marked on either side where
            # the typology takes source errors (WMT's raters mark an omission in the source: Accuracy/Omission).
            if kind == SOURCE and side != SOURCE:
                raise TaskTypeError(f"{what}.category: {category!r} is for source spans; this one is on the {side}")
            if kind == "whole_segment" and side == SOURCE:
                raise TaskTypeError(f"{what}.category: {category!r} is for output spans; this one is on the {side}")
            if kind == "whole_segment" and (start, stop) != (0, length):
                raise TaskTypeError(f"{what}: a {category!r} span covers the whole output: [0, {length})")
        elif category:
            raise TaskTypeError(f"{what}.category: spans take no category here, got {category!r}")
        origin = span.get("origin") or ADDED
        if origin not in ORIGINS:
            raise TaskTypeError(f"{what}.origin must be one of {', '.join(ORIGINS)}, got {origin!r}")
        proposal = span.get("proposal")
        if origin == ADDED:
            if proposal is not None:
                raise TaskTypeError(
                    f"{what}.proposal: a span the rater added answers no proposal "
                    "(say its origin: accepted, edited or rejected)"
                )
            return Span(side, start, stop, severity, category, origin)
        if isinstance(proposal, bool) or not isinstance(proposal, int) or not 0 <= proposal < len(proposals):
            raise TaskTypeError(
                f"{what}.proposal must be the index of a proposed span of this output (0 to {len(proposals) - 1})"
                if proposals
                else f"{what}.origin: this output has no proposed spans; the origin is {ADDED!r}"
            )
        p = proposals[proposal]
        if origin == REJECTED and (side, start, stop) != (p.side, p.start, p.end):
            raise TaskTypeError(f"{what}: a rejected proposal keeps its offsets [{p.start}, {p.end})")
        if origin == ACCEPTED and (side, start, stop, severity, category) != (
            p.side,
            p.start,
            p.end,
            p.severity,
            p.category,
        ):
            raise TaskTypeError(f"{what}: an accepted proposal is kept as proposed; a changed one is {EDITED!r}")
        return Span(side, start, stop, severity, category, origin, p.id)
