"""Quality control in words for the lead's pages: the rules of a version, what changed between versions, and
why each action on a rater was taken (a rule's evidence, citing the rules version, or a lead's reason)."""

from annotation.models import QcRules, RaterAction

ACTION_WORDS = {
    "warn": "warn (log only)",
    "pause": "pause the rater",
    "exclude": "exclude the rater's judgments and pause them",
}


def _pct(share: float) -> str:
    return f"{share * 100:.4g} %"


def _num(x) -> str:
    return f"{x:.4g}" if isinstance(x, float) else str(x)


def rules_sentences(rules: QcRules) -> list[tuple[str, str]]:
    """(rule, what it does) for each rule of the version, off ones said to be off."""
    off = "off"
    return [
        (
            "Gold accuracy",
            off
            if not rules.gold_accuracy_threshold
            else f"at least {_pct(rules.gold_accuracy_threshold)} of first answers on gold checks right, judged once "
            f"{rules.min_gold_answered} gold item{'s' if rules.min_gold_answered != 1 else ''} are answered",
        ),
        (
            "Speed",
            off
            if not rules.min_seconds_per_judgment
            else f"fires when most of the last 20 screens took under {_num(rules.min_seconds_per_judgment)} s",
        ),
        (
            "Straight-lining",
            off
            if not rules.straight_line_run
            else f"fires after {rules.straight_line_run} screens in a row with the same answers",
        ),
        (
            "Degraded controls",
            off
            if not rules.degraded_p_threshold
            else "fires when damaged copies are not scored lower "
            f"(one-sided p above {_num(rules.degraded_p_threshold)}), "
            f"judged once {rules.min_degraded_answered} copies are judged",
        ),
        (
            "Flags on controls",
            off
            if not rules.control_flag_share
            else f"fires when more than {_pct(rules.control_flag_share)} of the control screens served are flagged",
        ),
        ("When a rule fires", ACTION_WORDS.get(rules.action, rules.action)),
    ]


def rules_changes(previous: QcRules | None, current: QcRules) -> list[str]:
    """What ``current`` changed from ``previous``, rule by rule; everything for a first version."""
    if previous is None:
        return ["first version"]
    before, after = dict(rules_sentences(previous)), dict(rules_sentences(current))
    return [f"{name}: {before[name]} → {after[name]}" for name in after if before[name] != after[name]]


def _evidence_text(rule: str, e: dict) -> str:
    if rule == "gold_accuracy":
        return (
            f"gold accuracy {_pct(e['accuracy'])} ({e['correct']} of {e['answers']} first answers right on "
            f"{e['gold_items']} gold items), below the {_pct(e['threshold'])} needed"
        )
    if rule == "too_fast":
        return f"{e['too_fast']} of the last {e['recent_screens']} screens answered in under {_num(e['min_seconds'])} s"
    if rule == "straight_line":
        return f"{e['run']} screens in a row with the same answers (the limit is {e['limit']})"
    if rule == "degraded":
        return (
            f"damaged copies not scored lower than their originals: p = {_num(e['p_value'])} over "
            f"{e['controls']} copies, above the limit {_num(e['threshold'])}"
        )
    if rule == "control_flags":
        return (
            f"flagged {e['flagged']} of {e['controls']} control screens ({_pct(e['share'])}), more than the "
            f"{_pct(e['threshold'])} allowed"
        )
    if rule == "qualification":
        flagged = f", {e['flagged']} flagged" if e.get("flagged") else ""
        return (
            f"{e['right']} of {e['training_screens']} training items answered right{flagged}, below the pass "
            f"mark of {_pct(e['pass_mark'])}"
        )
    return "; ".join(f"{key.replace('_', ' ')} {_num(value)}" for key, value in e.items())


def action_reason(action: RaterAction) -> str:
    """Why the action was taken, in words: the lead's reason, or the rule, its evidence and the rules version."""
    if action.by_id is not None or not action.rule:
        return action.reason or "no reason given"
    text = _evidence_text(action.rule, action.evidence or {})
    if action.rule == "qualification":
        return f"Qualification gate: {text}."
    version = action.rules.version if action.rules else "?"
    return f"Rule {action.rule.replace('_', ' ')} of rules version {version}: {text}."


def action_actor(action: RaterAction) -> str:
    if action.by_id is not None:
        return action.by.username
    if action.rule == "qualification":
        return "the qualification gate"
    return f"rules v{action.rules.version}" if action.rules else "a rule"
