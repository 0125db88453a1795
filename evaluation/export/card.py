"""The README.md data card of an export: Hugging Face YAML front matter (license, language, task
categories, size category, configs with their data files) and the sections a reader needs to trust
the data, written from the facts the platform collected (``render(facts)``, ``card_facts.CardFacts``).
Nothing in it depends on the clock or on database ids, so the same data gives the same card.

Text the users wrote (names, instructions, labels, subgroups, systems) is HTML-escaped where it enters
the Markdown, so a ``<script>`` in a project name stays text; the card's own Markdown is kept."""

import html
import re

import yaml

from annotation.task_types import REGISTRY
from annotation.task_types.facts import COMPARED

from .card_facts import CardFacts, Estimate, OptionFacts, ProjectFacts, SystemMean, SystemTally, TrendPoint

CHART_NAME = "agreement_trend.png"

SIZE_CATEGORIES = [
    (1_000, "n<1K"),
    (10_000, "1K<n<10K"),
    (100_000, "10K<n<100K"),
    (1_000_000, "100K<n<1M"),
    (10_000_000, "1M<n<10M"),
    (100_000_000, "10M<n<100M"),
]
CONFIG_ORDER = ("judgments", "items", "scores", "spans", "raters", "votes")
# What the card says is not known when the authors left it out at export (export option: its words).
UNSTATED = {
    "recruitment": "how raters were recruited",
    "compensation": "how they were paid",
    "consent": "what they consented to and any ethics review",
    "intended_uses": "the intended uses",
}
PREFERRED_FORMAT = ("parquet", "jsonl", "csv")


def size_category(n: int) -> str:
    return next((name for bound, name in SIZE_CATEGORIES if n < bound), "n>100M")


def num(value, digits: int = 3) -> str:
    if value is None:
        return "–"
    if isinstance(value, int):
        return f"{value:,}"
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text  # no "-0.000"


class Markdown(str):
    """The card's own Markdown, placed as it is (``cell`` escapes everything else)."""


def user_text(value) -> str:
    """User text for the card's Markdown: no HTML (``<``, ``>``, ``&`` escaped) and on one line."""
    return " ".join(html.escape(str(value), quote=False).splitlines())


def cell(value) -> str:
    """Text made safe for a Markdown table cell."""
    value = value if isinstance(value, Markdown) else user_text(value)
    return value.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").strip() or "–"


def table(header: list[str], rows: list[list]) -> str:
    lines = ["| " + " | ".join(cell(c) for c in header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def estimate(s: Estimate | TrendPoint | None, *, n: bool = True) -> str:
    """A snapshot as ``0.812 [0.705, 0.893], n = 120`` (``insufficient data (reason)`` when it has none; a trend
    point states no reason)."""
    if s is None:
        return "–"
    if s.value is None:
        reason = s.reason if isinstance(s, Estimate) else ""
        return f"insufficient data ({reason})" if reason else "insufficient data"
    text = num(s.value)
    if s.ci_low is not None:
        text += f" [{num(s.ci_low)}, {num(s.ci_high)}]"
    if n:
        text += f", n = {s.n_units:,}"
    if s.unreliable:
        text += " †"
    return text


def front_matter(facts: CardFacts) -> dict:
    options, counts = facts.options, facts.counts
    meta: dict = {"pretty_name": facts.project.name, "license": options.license}
    if options.languages:
        meta["language"] = list(options.languages)
    meta["task_categories"] = list(options.task_categories)
    meta["tags"] = ["human-evaluation", "human-judgments", f"{facts.project.task_type}-evaluation"]
    meta["size_categories"] = [size_category(counts.n_judgments)]
    configs = []
    for name in CONFIG_ORDER:
        files = [f for f in facts.files if f.table == name]
        fmt = next((f for f in PREFERRED_FORMAT if any(x.format == f for x in files)), None)
        if fmt is None:
            continue
        config: dict[str, object] = {"config_name": name}
        if name == "judgments":
            config["default"] = True
        config["data_files"] = [{"split": f.split, "path": f.path} for f in files if f.format == fmt]
        configs.append(config)
    meta["configs"] = configs
    return meta


def _summary(facts: CardFacts) -> list[str]:
    p, c, o = facts.project, facts.counts, facts.options
    kind = REGISTRY[p.task_type].card.name
    criteria = ", ".join(user_text(x.name) for x in facts.criteria)
    if not c.first_submitted:
        period = ""
    elif c.first_submitted == c.last_submitted:
        period = f", all submitted on {c.first_submitted}"
    else:
        period = f", submitted from {c.first_submitted} to {c.last_submitted}"
    about = facts.about
    told = [user_text(about.summary)] if about.summary else []
    if about.motivation:
        told.append(f"**Motivation.** {user_text(about.motivation)}")
    return [
        f"# {user_text(p.name)}",
        "",
        *(line for text in told for line in (text, "")),
        f"Human evaluation of generated text by {kind}: {num(c.n_judgments)} individual judgments from "
        f"{num(c.n_raters)} raters on {num(c.n_items)} items ({num(c.n_outputs)} outputs of "
        f"{num(len(c.systems))} systems), on {len(facts.criteria)} "
        f"criteri{'on' if len(facts.criteria) == 1 else 'a'} ({criteria}){period}.",
        "",
        *_rating_unit(p),
        (
            "Every individual judgment is included"
            if o.include_excluded
            else "Every individual judgment is included but those of raters excluded by quality control (left out "
            "at export)"
        )
        + (
            ", with its rater under a stable pseudonym"
            if not o.include_usernames
            else ", with its rater's username (exported on request)"
        )
        + (
            ", and flags for gold (control) items and for raters excluded by quality control. "
            if o.include_excluded
            else ", and flags for gold (control) items. "
        )
        + "The aggregated scores and the agreement figures below leave those out. This card was generated by the "
        "Concord evaluation platform from what it recorded; what it cannot know is listed under "
        "*Known limitations*, and `heds.json` holds the same facts as a HEDS 3.0 datasheet.",
    ]


def _files(facts: CardFacts) -> list[str]:
    rows = []
    for name in CONFIG_ORDER:
        files = [f for f in facts.files if f.table == name]
        if not files:
            continue
        formats = sorted({f.format for f in files}, key=PREFERRED_FORMAT.index)
        splits = sorted({f.split for f in files})
        n_rows = sum(f.rows for f in files if f.format == formats[0])
        extension = formats[0] if len(formats) == 1 else "{" + ",".join(formats) + "}"
        paths = Markdown(
            f"`data/{name}.{extension}`"
            if splits == ["train"]
            else f"`data/{name}/<split>.{extension}` ({len(splits)} splits)"
        )
        rows.append([name, paths, num(n_rows)])
    out = [
        "## Files",
        "",
        table(["config", "files", "rows"], rows),
        "",
        f"Formats: {', '.join(facts.options.formats)}. "
        + (
            "Each table is split by item subgroup; the split names are the subgroups with every character "
            "other than a letter, digit or underscore replaced by `_`."
            if facts.options.split == "subgroup"
            else "Each table is one file per format (split `train`)."
        )
        + " Also in the archive: `heds.json` (HEDS 3.0 datasheet), `card.json` (the facts this card was "
        "written from), `export.json` (every file with its rows and size)"
        + (f" and `{CHART_NAME}` (the agreement trend)." if facts.chart else ".")
        + _csv_rule(facts.options),
        "",
    ]
    for name in CONFIG_ORDER:
        columns = facts.tables.get(name)
        if not columns:
            continue
        out += [
            f"### `{name}`",
            "",
            table(["column", "meaning"], [[f"`{c.name}`", c.description] for c in columns]),
            "",
        ]
    return out


def _csv_rule(options: OptionFacts) -> str:
    if "csv" not in options.formats:
        return ""
    if options.csv_raw_text:
        return (
            " The CSV files hold text exactly as written (export option `csv_raw_text`): a cell that starts with "
            "`=`, `+`, `-` or `@` may run as a formula when opened in a spreadsheet."
        )
    return (
        " In the CSV files, text that starts with `=`, `+`, `-`, `@`, a tab or a carriage return has a `'` put "
        "in front, so that a spreadsheet shows it instead of running it as a formula (OWASP's rule against CSV "
        "injection); numbers are unchanged, and the JSONL and Parquet files hold every text as written."
    )


def _task(facts: CardFacts) -> list[str]:
    p = facts.project
    card = REGISTRY[p.task_type].card
    kind, how = card.name, card.description
    out = ["## Task, instructions and criteria", "", f"Task type: **{kind}**. {how}", ""]
    if p.show_reference:
        out += ["Raters were shown the reference text(s) beside the input.", ""]
    modulus = p.rankme_modulus
    if modulus is not None:
        out += [
            f"Magnitude estimation against a modulus: every screen first showed the item's reference with the "
            f"fixed score {modulus:g}, and raters scored each output with any positive number relative to it "
            f"(twice the number: twice as good). Scores are published as given; agreement is measured on "
            f"log(score / {modulus:g}) and system scores use per-rater log normalisation.",
            "",
        ]
    out += ["### Instructions given to raters", ""]
    if p.instructions.strip():
        out += ["> " + user_text(line) if line.strip() else ">" for line in p.instructions.strip().splitlines()]
    else:
        out += ["No instructions were recorded for this project."]
    out += ["", "### Criteria", ""]
    rows = []
    for c in facts.criteria:
        scale = card.scale(c, modulus)
        labels = ", ".join(c.labels) if c.labels else "–"
        rows.append([c.name, scale, labels, c.help_text or "–"])
    out += [table(["criterion", "scale", "point labels", "question / help text"], rows), ""]
    if card.settings is not None and p.task_config:
        out += ["### Settings", "", user_text(card.settings(p.task_config)), ""]
    return out


def _items(facts: CardFacts) -> list[str]:
    c = facts.counts
    per_item = ", ".join(f"{k} outputs: {num(v)} items" for k, v in c.outputs_per_item.items())
    out = [
        "## Items, systems and subgroups",
        "",
        f"- {num(c.n_items)} items, of which {num(c.n_gold_items)} gold (control) items; {per_item}.",
        f"- {num(c.n_outputs)} outputs from {num(len(c.systems))} systems.",
        "- How the items were sampled from their source is not recorded by the platform (see *Known limitations*).",
        "",
        table(["system", "outputs"], [[s, num(n)] for s, n in c.systems.items()]),
        "",
    ]
    named = [s for s in c.subgroups if s.subgroup]
    if named:
        out += [
            f"{len(named)} subgroups:",
            "",
            table(
                ["subgroup", "items", "judgments"],
                [[s.subgroup or "(none)", num(s.n_items), num(s.n_judgments)] for s in c.subgroups],
            ),
            "",
        ]
    else:
        out += ["The items have no subgroups.", ""]
    return out


def _raters(facts: CardFacts) -> list[str]:
    c = facts.counts
    q = c.judgments_per_rater
    sources = c.judgment_sources
    made = []
    if sources.get("rater"):
        made.append(f"{num(sources['rater'])} made on the platform's rating screens")
    if sources.get("import"):
        made.append(f"{num(sources['import'])} imported from a study run elsewhere")
    naming = (
        "Raters appear under their usernames (the export was made with `include_usernames`); raters of an "
        "imported study keep the ids that study gave them. No emails or other account data are included."
        if facts.options.include_usernames
        else "Raters appear as `rater-001`, `rater-002`, … numbered by their first judgment in the project, "
        "the same in every export of it. No usernames, emails or other personal data are included."
    )
    return [
        "## Raters",
        "",
        f"- {num(c.n_raters)} raters; judgments: {'; '.join(made) or 'none'}.",
        f"- Judgments per rater: min {num(q.min)}, first quartile {num(q.q1, 1)}, median "
        f"{num(q.median, 1)}, third quartile {num(q.q3, 1)}, max {num(q.max)} (mean {num(q.mean, 1)}).",
        f"- {naming}",
        "- Who the raters are (expertise, recruitment, payment, native language, demographics) is not "
        "recorded by the platform.",
        "",
    ]


def _share(share: float) -> str:
    if share >= 1:
        return "every item"
    if share <= 0:
        return "no item (every item gets one rater)"
    return f"a {100 * share:.0f}% share of items (the rest get one rater)"


def _design(facts: CardFacts) -> list[str]:
    p, c = facts.project, facts.counts
    per_item = ", ".join(f"{k} rater{'s' if k != 1 else ''}: {num(v)} items" for k, v in c.raters_per_item.items())
    out = [
        "## Assignment design",
        "",
        f"- Configured: {p.raters_per_item} raters per item for {_share(p.double_annotation_share)}, "
        f"gold items on {100 * p.gold_rate:.0f}% of screens, an assignment lease of {p.lease_seconds} s.",
        f"- Observed on non-gold items: {per_item or 'no judgments yet'}.",
        f"- Display order: {REGISTRY[p.task_type].card.order_policy}.",
    ]
    n_judgments = c.n_judgments
    if c.n_with_shown_order:
        share = c.n_first_output_shown_first / c.n_with_shown_order
        what = REGISTRY[p.task_type].card.shown_first
        out.append(
            f"- The order shown is recorded for {num(c.n_with_shown_order)} of {num(n_judgments)} judgments "
            f"(`shown_order`); {100 * share:.1f}% of them had the {what}."
        )
    else:
        out.append(
            f"- No display order is recorded for the {num(n_judgments)} judgments (typical of imported studies)."
        )
    if c.median_duration_ms is not None:
        out.append(
            f"- Median time on a screen: {c.median_duration_ms / 1000:.1f} s "
            f"({num(c.n_with_duration)} judgments timed)."
        )
    return out + [""]


def _actions(counts: dict[str, int]) -> str:
    return ", ".join(f"{kind} {n}" for kind, n in counts.items()) or "none"


def _quality(facts: CardFacts) -> list[str]:
    c, e = facts.counts, facts.counts.exclusions
    qc = facts.qc
    out = ["## Quality control", ""]
    if qc.rules:
        out += [
            "Rules, every version (a version is frozen once judging starts; an edit stores the next one). "
            "0 turns a rule off; the action is what a rule does to a rater it catches.",
            "",
            table(
                ["version", "gold accuracy at least", "after gold answers", "faster than (s)",
                 "same answers in a row", "degraded-control p above", "action", "actions taken"],
                [[r.version, num(r.gold_accuracy_threshold, 2), r.min_gold_answered,
                  num(r.min_seconds_per_judgment, 1), r.straight_line_run, num(r.degraded_p_threshold, 2),
                  r.action, _actions(r.actions)] for r in qc.rules],
            ),
            "",
        ]  # fmt: skip
    else:
        out += ["- Rules: none configured for this project."]
    if qc.manual_actions:
        out += [f"- Leads' own actions on raters: {_actions(qc.manual_actions)}."]
    if qc.lead_actions:
        out += [f"- Lead actions in the project's audit log (exports aside): {_actions(qc.lead_actions)}."]
    out += [
        f"- Gold (control) items: {num(c.n_gold_items)}, with {num(e.gold_item_judgments)} judgments on "
        "them (flag `gold_item`); they are left out of the scores and the agreement.",
        f"- Excluded raters: {num(e.n_excluded_raters)}, with {num(e.excluded_rater_judgments)} judgments "
        "(flag `excluded`) left out of the scores and the agreement; "
        + (
            "their judgments are in the files."
            if facts.options.include_excluded
            else "their judgments are not in the files (export option)."
        ),
        f"- Revisions: {num(e.superseded_revisions)} earlier versions of judgments were replaced by their "
        "rater and are not exported; each row is the current judgment of one rater on one output and criterion.",
        f"- Judgments used for scores and agreement: {num(c.n_included_judgments)} of {num(c.n_judgments)}.",
        "",
    ]
    return out


# What a judgment is of, in a project rating the turns of conversation outputs (Project.rating_unit).
RATING_UNIT_WORDS = {
    "turn": "every assistant turn of each output (a conversation) was rated on its own; each judgment row names "
    "its turn (`turn`, the index from 0 in the output's turns: the screens call index 2 of an output opening with "
    'an assistant turn "assistant turn 2 (message 3)") and agreement counts each turn as a unit',
    "both": "every assistant turn of each output (a conversation) was rated on its own, and the whole output too; a "
    "judgment row names its turn (`turn`, the index from 0 in the output's turns: the screens call index 2 of an "
    'output opening with an assistant turn "assistant turn 2 (message 3)"; empty for the whole output), and '
    "agreement is computed apart over the whole outputs and over the turns (a criterion's per-turn figures are "
    'labelled "(per turn)")',
}


def _rating_unit(project: ProjectFacts) -> list[str]:
    words = RATING_UNIT_WORDS.get(project.rating_unit)
    return [f"Unit of rating: {words}.", ""] if words else []


def _agreement(facts: CardFacts) -> list[str]:
    a = facts.agreement
    out = ["## Agreement", ""]
    if a.week is None or a.main_statistic is None:
        return out + ["No agreement could be computed: no item was judged by two raters.", ""]
    labels = a.statistic_labels
    unit = REGISTRY[facts.project.task_type].agreement.unit + "s"
    out += [
        f"Inter-annotator agreement as the project's dashboard shows it: stored snapshots of all judgments up "
        f"to the week of {a.week} (cumulative), on non-gold items. The main coefficient is "
        f"{a.main_statistic_label}, with a 95% bootstrap interval over {unit}; n is the number of {unit} "
        f"judged by at least two raters. † marks fewer than {a.min_reliable_units} such {unit}: read those "
        "figures as unreliable.",
        "",
        "### Per criterion",
        "",
    ]
    statistics = a.label_columns
    rows = []
    for name, stats in a.labels.items():
        main = stats.get(a.main_statistic)
        rows.append(
            [
                name,
                estimate(main, n=False),
                num(main.n_units) if main else "–",
                num(main.n_raters) if main else "–",
            ]
            + [estimate(stats.get(s), n=False) for s in statistics[1:]]
        )
    out += [
        table(
            ["criterion", labels.get(a.main_statistic, a.main_statistic), "n", "raters"]
            + [labels.get(s, s) for s in statistics[1:]],
            rows,
        ),
        "",
    ]
    if a.subgroups:
        criteria = list(a.labels)
        out += [
            f"### Per subgroup ({a.main_statistic_label})",
            "",
            table(
                ["subgroup", *criteria],
                [[subgroup, *(estimate(cells.get(c)) for c in criteria)] for subgroup, cells in a.subgroups.items()],
            ),
            "",
        ]
    if a.pairs:
        out += ["### Rater pairs", ""]
        for criterion, entry in a.pairs.items():
            pairs = entry.pairs
            label = labels.get(entry.statistic, entry.statistic)
            if len(pairs) <= 45:
                out += [
                    f"{user_text(criterion)} ({label}):",
                    "",
                    table(["rater", "rater", label], [[p.rater_a, p.rater_b, estimate(p)] for p in pairs]),
                    "",
                ]
            else:
                values = sorted(p.value for p in pairs if p.value is not None)
                middle = values[len(values) // 2] if values else None
                out += [
                    f"{user_text(criterion)} ({label}): {len(pairs)} rater pairs; median {num(middle)}, range "
                    f"{num(values[0] if values else None)} to {num(values[-1] if values else None)} "
                    "(every pair in `card.json`).",
                    "",
                ]
    out += [f"### Weekly trend ({a.main_statistic_label})", ""]
    if facts.chart:
        out += [f"![Agreement per week and cumulative, with 95% intervals]({CHART_NAME})", ""]
    rows = []
    for name, series in a.trend.items():
        weekly = {p.week: p for p in series.get("week", ())}
        for p in series.get("cumulative", ()):
            rows.append([name, p.week, estimate(weekly.get(p.week)), estimate(p)])
    out += [table(["criterion", "week of", "that week", "cumulative"], rows), ""]
    return out


def _distribution_bins(project: ProjectFacts) -> str:
    without, with_modulus = REGISTRY[project.task_type].card.distribution_bins
    return without if project.rankme_modulus is None else with_modulus


def _distributions(facts: CardFacts) -> list[str]:
    out = [
        "## Label distributions",
        "",
        "How often each value was given, in the judgments used for scores and agreement"
        + _distribution_bins(facts.project),
        "",
    ]
    for name, counts in facts.label_distributions.items():
        total = sum(counts.values())
        rows = [[label, num(n), f"{100 * n / total:.1f}%" if total else "–"] for label, n in counts.items()]
        out += [f"### {user_text(name)}", "", table(["value", "judgments", "share"], rows), ""]
    return out


def _system_row(r: SystemMean | SystemTally) -> list:
    if isinstance(r, SystemTally):
        return [r.system, num(r.n), num(r.wins), num(r.ties), num(r.losses), num(r.win_rate)]
    return [r.system, num(r.n), num(r.mean)]


def _systems(facts: CardFacts) -> list[str]:
    if not facts.systems:
        return []
    out = ["## System scores", ""]
    if REGISTRY[facts.project.task_type].results.kind == COMPARED:
        header = ["system", "n", "wins", "ties", "losses", "win rate"]
        out += [
            "Wins, ties and losses of each system over all its comparisons; win rate = (wins + ties / 2) / n.",
            "",
        ]
    else:
        header = ["system", "judgments", "mean"]
        out += [
            "Mean of the raw ratings per system (no normalisation); the platform's results page and API "
            "give bootstrap intervals and significance tests.",
            "",
        ]
    for name, rows in facts.systems.items():
        out += [f"### {user_text(name)}", "", table(header, [_system_row(r) for r in rows]), ""]
    return out


def _limitations(facts: CardFacts) -> list[str]:
    a, o = facts.agreement, facts.options
    out = ["## Known limitations", ""]
    small = [x for x in a.limitations if x.status == "ok"]
    empty = [x for x in a.limitations if x.status != "ok"]
    if small:
        names = "; ".join(
            user_text(x.criterion) + (f" in {user_text(x.subgroup)}" if x.subgroup else "") + f" (n = {x.n_units})"
            for x in small
        )
        out.append(
            f"- {len(small)} agreement figure{'s' if len(small) != 1 else ''} rest on fewer than "
            f"{a.min_reliable_units} units and are unreliable: {names}."
        )
    if empty:
        names = "; ".join(
            user_text(x.criterion)
            + (f" in {user_text(x.subgroup)}" if x.subgroup else "")
            + f" ({user_text(x.reason or 'no data')})"
            for x in empty
        )
        out.append(f"- {len(empty)} scope{'s' if len(empty) != 1 else ''} have no agreement figure: {names}.")
    if a.off_scale:
        names = "; ".join(
            f"{user_text(criterion)} ({off.n}: values {user_text(', '.join(off.values))})"
            for criterion, off in a.off_scale.items()
        )
        out.append(
            f"- Stored judgments off their label's scale are in the files but left out of every agreement "
            f"figure: {names}."
        )
    if a.week is not None:
        out.append(
            "- Agreement is read from the snapshots stored when the export ran; judgments submitted after "
            "their last recompute are in the files but not in the agreement figures."
        )
    if o.license in ("unknown", "other"):
        out.append(f"- License: `{o.license}`; the lead did not name a license at export.")
    if not o.languages:
        out.append("- Language: not declared at export (the platform does not record it).")
    about = facts.about
    if about.limitations:
        out.append(f"- Stated by the authors: {user_text(about.limitations)}")
    unstated = [what for field, what in UNSTATED.items() if not getattr(about, field)]
    out += [
        "- Not recorded by the platform: how items were sampled, the conditions raters worked in"
        + "".join(f", {what}" for what in unstated)
        + ". `heds.json` marks each such field as not known.",
        "",
    ]
    return out


def _fenced(text: str) -> list[str]:
    """``text`` as a code block whose fence no run of backticks in it can close."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + ("bibtex" if text.lstrip().startswith("@") else ""), text, fence]


def _about(facts: CardFacts) -> list[str]:
    """What the authors stated at export: who made the dataset and how to cite it, how raters were
    recruited and paid and what they consented to, what the data is for."""
    about = facts.about
    out = []
    people = [("Authors", about.authors), ("Contact", about.contact)]
    if any(text for _, text in people) or about.citation:
        out += ["## Authors and citation", ""]
        out += [f"- {label}: {user_text(text)}" for label, text in people if text]
        if about.citation:
            out += ["", *_fenced(about.citation)]
        out.append("")
    raters = [
        (label, getattr(about, field))
        for field, label in (
            ("recruitment", "Recruitment"),
            ("compensation", "Pay"),
            ("consent", "Consent and ethics review"),
        )
    ]
    if any(text for _, text in raters):
        out += ["## Raters' recruitment, pay and consent", ""]
        out += [f"- {label}: {user_text(text)}" for label, text in raters if text] + [""]
    if about.intended_uses:
        out += ["## Intended uses", "", user_text(about.intended_uses), ""]
    return out


def _reimport(facts: CardFacts) -> list[str]:
    return [
        "## Re-importing into Concord",
        "",
        "Each line of `items.jsonl` (and each row of `items.csv`) is an item import line as it is. The first "
        "eight fields of a `judgments.jsonl` line (`item`, `system`, `criterion`, `rater`, `value`, "
        "`submitted_at`, `shown_order`, `duration_ms`) are a judgment import line. "
        "`manage.py import_export ZIP --lead USERNAME` creates a project with this one's task, criteria and "
        "design and loads the archive's items and judgments into it.",
        "",
    ]


def render(facts: CardFacts) -> str:
    header = yaml.safe_dump(front_matter(facts), sort_keys=False, allow_unicode=True, width=1000)
    parts = ["---", header.rstrip(), "---", ""]
    for section in (
        _summary,
        _about,
        _files,
        _task,
        _items,
        _raters,
        _design,
        _quality,
        _agreement,
        _distributions,
        _systems,
        _limitations,
        _reimport,
    ):
        lines = section(facts)
        if lines:
            parts += lines if lines[-1] == "" else [*lines, ""]
    return "\n".join(parts).rstrip() + "\n"
