"""A HEDS 3.0 datasheet (Human Evaluation Datasheet; Belz & Thomson 2024, arXiv:2412.07940; form at
https://nlp-heds.github.io, repository DCU-NLG/HEDS-3.0) filled from the facts the platform recorded.

The datasheet has five sections: 1 main reference and supplementary resources, 2 evaluated systems,
3 sample of outputs, evaluators and experimental design, 4 quality criteria (one block per criterion:
4.1 criterion properties, 4.2 evaluation mode, 4.3 response elicitation), 5 ethics. Questions follow
the form's numbering and are abridged; each answer carries a status:

- ``filled``: answered from the platform's records or from what the authors stated at export;
- ``partly_filled``: the platform gives part of the answer (the rest is in ``note``);
- ``not_known``: the platform cannot know this; the authors must answer.
"""

from annotation.task_types import REGISTRY

from .card_facts import AboutFacts, CardCounts, CardFacts, CriterionFacts, Estimate

FILLED, PARTLY, NOT_KNOWN = "filled", "partly_filled", "not_known"

_ASK_AUTHORS = "Not recorded by the platform: the authors of the evaluation must answer."


def _q(qid: str, question: str, answer=None, status: str = NOT_KNOWN, note: str = "") -> dict:
    entry = {"id": qid, "question": question, "status": status, "answer": answer}
    entry["note"] = note or (_ASK_AUTHORS if status == NOT_KNOWN else "")
    return entry


_STATED = "As stated by the authors at export."
# What the authors stated at export that the form has no question for (export option: its key in the sheet).
_STATED_ONLY = ("summary", "motivation", "intended_uses", "limitations")


def _stated(qid: str, question: str, text: str, status: str = FILLED, note: str = _STATED) -> dict:
    """The question answered with what the authors stated at export, or left for them if they stated nothing."""
    return _q(qid, question, text, status, note) if text else _q(qid, question)


def _contact(about: AboutFacts) -> str:
    return "; ".join(
        f"{label}: {text}" for label, text in (("authors", about.authors), ("contact", about.contact)) if text
    )


def _measured(name: str, s: Estimate, labels: dict[str, str]) -> str:
    """One statistic's figure, as ``alpha = 0.812 [0.705, 0.893] (n = 120 units)``."""
    return (
        f"{labels.get(name, name)} = "
        + (f"{s.value:.3f}" if s.value is not None else "insufficient data")
        + (f" [{s.ci_low:.3f}, {s.ci_high:.3f}]" if s.ci_low is not None and s.ci_high is not None else "")
        + f" (n = {s.n_units} units)"
    )


def _criterion_block(criterion: CriterionFacts, facts: CardFacts) -> dict:
    card = REGISTRY[facts.project.task_type].card
    modulus = facts.project.rankme_modulus
    agreement = facts.agreement
    stats = agreement.labels.get(criterion.name, {})
    size, values = card.heds_scale(criterion, modulus)
    config = facts.project.task_config
    if card.settings is not None and config:
        values = f"{values}. {card.settings(config)}"
    if stats:
        measured = "; ".join(_measured(name, s, agreement.statistic_labels) for name, s in stats.items())
        iaa = _q(
            "4.3.11",
            "Inter- and intra-annotator agreement: method and scores.",
            f"Inter-annotator agreement, all judgments to the week of {agreement.week}, non-gold items: "
            f"{measured}. Intra-annotator agreement was not measured.",
            FILLED,
        )
    else:
        iaa = _q(
            "4.3.11",
            "Inter- and intra-annotator agreement: method and scores.",
            "Not measured: no unit was judged by two raters.",
            FILLED,
        )
    aggregation = card.aggregation_with_modulus if modulus is not None else card.aggregation
    return {
        "criterion": criterion.name,
        "questions": [
            _q("4.1.1", "Type of quality assessed (correctness, goodness, feature)."),
            _q("4.1.2", "Aspect of the outputs assessed (form, content, both)."),
            _q(
                "4.1.3",
                "Frame of reference (output in its own right, relative to the input, to something external).",
            ),
            _q(
                "4.2.1",
                "Objective or subjective assessment.",
                "subjective",
                FILLED,
                "Human raters give ratings or preferences.",
            ),
            _q(
                "4.2.2",
                "Absolute or relative assessment.",
                card.assessment,
                FILLED,
            ),
            _q(
                "4.2.3",
                "Intrinsic or extrinsic evaluation.",
                "intrinsic",
                PARTLY,
                "Raters judge the outputs themselves; confirm that no effect outside the system is measured.",
            ),
            _q(
                "4.3.1",
                "Name of the criterion in explanations and interfaces shown to evaluators.",
                criterion.name,
                FILLED,
            ),
            _q(
                "4.3.2",
                "Definition of the criterion given to evaluators.",
                criterion.help_text or None,
                FILLED if criterion.help_text else NOT_KNOWN,
                "" if criterion.help_text else "No definition was recorded with the criterion.",
            ),
            _q("4.3.3", "Size of the scale or other rating instrument.", size, FILLED),
            _q("4.3.4", "List or range of the possible values.", values, FILLED),
            _q("4.3.5", "How the rating instrument is presented.", card.instrument, FILLED),
            _q(
                "4.3.6",
                "Task performed when there is no rating instrument.",
                "N/A (there is a rating instrument)",
                FILLED,
            ),
            _q(
                "4.3.7",
                "Verbatim question or prompt shown with each assessment.",
                criterion.help_text or None,
                PARTLY,
                "The criterion's help text as stored; the rating screen shows it under the criterion's name.",
            ),
            _q("4.3.8", "Form of response elicitation.", card.elicitation, FILLED),
            _q("4.3.9", "How raw responses are aggregated into reported scores.", aggregation, FILLED),
            _q(
                "4.3.10",
                "Methods for effect size and significance.",
                "Bootstrap confidence intervals; paired bootstrap or approximate randomisation tests with Holm "
                "correction (likert, rankme) or exact sign tests with Holm correction (pairwise), as run on the "
                "platform's results page.",
                PARTLY,
                "What the published report uses is for the authors to state.",
            ),
            iaa,
        ],
    }


def build(facts: CardFacts) -> dict:
    p, c, o = facts.project, facts.counts, facts.options
    about = facts.about
    systems = list(c.systems)
    n_items = c.n_items - c.n_gold_items
    rules = facts.qc.rules
    qc_answer = []
    if c.n_gold_items or rules:
        qc_answer.append("automatic quality checking methods are used during/post evaluation")
    if any(r.action == "exclude" for r in rules) or c.exclusions.n_excluded_raters:
        qc_answer.append("evaluators are excluded if they fail quality checks (often or badly enough)")
    if facts.qc.manual_actions:
        qc_answer.append("manual quality checking methods are used during/post evaluation")
    sections = [
        {
            "section": "1",
            "title": "Main reference and supplementary resources",
            "questions": [
                _stated("1.1", "Main reference (paper) for the evaluation, or 'for preregistration'.", about.citation),
                _q(
                    "1.2",
                    "Links to resources used (system outputs, evaluation tools, data).",
                    "The export archive this datasheet is part of (items, outputs, every judgment, scores).",
                    PARTLY,
                    "Add where the archive is published.",
                ),
                _q(
                    "1.3.1",
                    "Name, affiliation and email of the person completing the sheet.",
                    None,
                    NOT_KNOWN,
                    "Filled automatically by the Concord export; the authors must add themselves.",
                ),
                _stated(
                    "1.3.2",
                    "Name, affiliation and email of the contact author.",
                    _contact(about),
                    PARTLY,
                    f"{_STATED} Check that it names the contact author with affiliation and email.",
                ),
            ],
        },
        {
            "section": "2",
            "title": "Evaluated system(s)",
            "questions": [
                _q(
                    "2.1",
                    "Type of input the evaluated systems take.",
                    None,
                    NOT_KNOWN,
                    "Inputs are stored as text; the category (sentence, document, dialogue…) is for the authors.",
                ),
                _q(
                    "2.2",
                    "Type of output the systems generate.",
                    "text",
                    PARTLY,
                    "Outputs are stored as text; choose the exact text category.",
                ),
                _q(
                    "2.3",
                    "Task the systems perform.",
                    None,
                    NOT_KNOWN,
                    f"Hugging Face task categories given at export: {', '.join(o.task_categories)}.",
                ),
                _q(
                    "2.4",
                    "Input language(s).",
                    list(o.languages) or None,
                    FILLED if o.languages else NOT_KNOWN,
                    "As declared at export." if o.languages else "No language was declared at export.",
                ),
                _q(
                    "2.5",
                    "Output language(s).",
                    list(o.languages) or None,
                    PARTLY if o.languages else NOT_KNOWN,
                    "Assumed to be the export's declared languages; confirm.",
                ),
            ],
        },
        {
            "section": "3",
            "title": "Sample of system outputs, evaluators and experimental design",
            "questions": [
                _q(
                    "3.1.1",
                    "Number of system outputs (evaluation items) evaluated per system.",
                    dict(c.systems),
                    FILLED,
                    f"{n_items} non-gold items and {c.n_gold_items} gold items; outputs per system.",
                ),
                _q(
                    "3.1.2",
                    "How the outputs were selected for inclusion.",
                    None,
                    NOT_KNOWN,
                    "The platform stores the items as imported, not how they were sampled.",
                ),
                _q("3.1.3", "Statistical power of the sample size."),
                _q("3.2.1", "Number of evaluators.", c.n_raters, FILLED),
                _stated(
                    "3.2.2",
                    "Kind of evaluators (experts, paid, known to authors…).",
                    about.compensation,
                    PARTLY,
                    "How raters were paid, as stated by the authors at export; choose the kinds of evaluators.",
                ),
                _stated("3.2.3", "How evaluators were recruited.", about.recruitment),
                _q(
                    "3.2.4",
                    "Training and practice given before the evaluation.",
                    p.instructions or None,
                    PARTLY,
                    "The written instructions shown to raters; any other training is for the authors to describe.",
                ),
                _q("3.2.5", "Other characteristics of the evaluators."),
                _q("3.3.1", "Has the experimental design been preregistered?"),
                _q(
                    "3.3.2",
                    "How responses were collected.",
                    _collection(c),
                    FILLED if not c.judgment_sources.get("import") else PARTLY,
                    ""
                    if not c.judgment_sources.get("import")
                    else "Imported judgments were collected with another tool: name it.",
                ),
                _q(
                    "3.3.3",
                    "Quality assurance methods.",
                    qc_answer or ["none of the above"],
                    PARTLY,
                    f"{c.n_gold_items} gold items; {c.exclusions.n_excluded_raters} raters excluded; "
                    + (
                        f"{len(rules)} version(s) of quality-control rules, listed in the data card."
                        if rules
                        else "no quality-control rules configured on the platform."
                    ),
                ),
                _q(
                    "3.3.4",
                    "What evaluators see (interface).",
                    f"One screen per item: the input{' and references' if p.show_reference else ''} and "
                    f"{REGISTRY[p.task_type].card.outputs_shown}, with the "
                    f"criteria below; order: {REGISTRY[p.task_type].card.order_policy}.",
                    PARTLY,
                    "Add a screenshot if possible.",
                ),
                _q(
                    "3.3.5",
                    "How free evaluators are regarding when and how quickly to evaluate.",
                    f"No time limit per assessment; an assignment is leased for {p.lease_seconds} s and returns "
                    "to the pool if not judged; progress is saved after every screen.",
                    PARTLY,
                    "For judgments made on this platform.",
                ),
                _q(
                    "3.3.6",
                    "Can evaluators ask questions or give feedback?",
                    None,
                    NOT_KNOWN,
                    "Raters can flag an item as broken, offensive or impossible to judge.",
                ),
                _q(
                    "3.3.7",
                    "Experimental conditions.",
                    "evaluation carried out by evaluators at a place of their own choosing (online)",
                    PARTLY,
                    "True of the platform's web screens; confirm for imported studies.",
                ),
                _q(
                    "3.3.8",
                    "Variation in the conditions (if not of the evaluators' choosing).",
                    "N/A",
                    PARTLY,
                ),
            ],
        },
        {
            "section": "4",
            "title": "Definition and operationalisation of quality criteria (one block per criterion)",
            "criteria": [_criterion_block(criterion, facts) for criterion in facts.criteria],
        },
        {
            "section": "5",
            "title": "Ethics",
            "questions": [
                _stated(
                    "5.1",
                    "Approval by a research ethics committee.",
                    about.consent,
                    PARTLY,
                    "Consent and ethics review, as stated by the authors at export; name the committee and "
                    "the approval if there was one.",
                ),
                _q(
                    "5.2",
                    "Personal data (GDPR Art. 4) in the outputs or responses, and how addressed.",
                    None,
                    PARTLY if not o.include_usernames else NOT_KNOWN,
                    "The export replaces rater accounts with pseudonyms and holds no account data; whether the "
                    "texts themselves contain personal data is for the authors."
                    if not o.include_usernames
                    else "This export includes rater usernames (export option).",
                ),
                _q("5.3", "Special-category data (GDPR Art. 9), and how addressed."),
                _q("5.4", "Impact assessments carried out."),
            ],
        },
    ]
    return {
        "form": "HEDS 3.0 (Human Evaluation Datasheet)",
        "form_url": "https://nlp-heds.github.io",
        "reference": "Belz and Thomson (2024). HEDS 3.0: The Human Evaluation Data Sheet Version 3.0. "
        "arXiv:2412.07940.",
        "filled_by": "Concord dataset export (automatic, from the platform's records)",
        "experiment": p.name,
        "statuses": {
            FILLED: "answered from the platform's records or what the authors stated at export",
            PARTLY: "partly answered by the platform; see note",
            NOT_KNOWN: "not known to the platform: the authors must answer",
        },
        "numbering_note": "Question ids follow the datasheet's sections and questions; wording is abridged. Check "
        "each id against the HEDS 3.0 form when transferring the answers. Facts the form has no question for "
        "are under platform_facts; what the authors stated at export that it has no question for, under "
        "stated_at_export.",
        "sections": sections,
        "platform_facts": {
            "systems": systems,
            "task_type": p.task_type,
            "raters_per_item": p.raters_per_item,
            "double_annotated_share": p.double_annotation_share,
            "gold_rate": p.gold_rate,
            "observed_raters_per_item": {str(k): v for k, v in c.raters_per_item.items()},
            "order_randomisation": REGISTRY[p.task_type].card.order_policy,
            **({"task_config": p.task_config} if p.task_config else {}),
            "n_judgments": c.n_judgments,
            "n_judgments_used": c.n_included_judgments,
        },
        "stated_at_export": {field: getattr(about, field) for field in _STATED_ONLY if getattr(about, field)},
    }


def _collection(counts: CardCounts) -> str:
    sources = counts.judgment_sources
    parts = []
    if sources.get("rater"):
        parts.append(f"{sources['rater']} judgments on the Concord web platform's rating screens")
    if sources.get("import"):
        parts.append(f"{sources['import']} judgments imported from a study run with another tool")
    return "; ".join(parts) or "no judgments"
