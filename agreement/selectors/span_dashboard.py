"""The dashboard's section on agreement about error spans, from the stored span rows of the latest week."""

from collections import defaultdict

from agreement.engine.span_scopes import KENDALL_TAU, SPAN_COUNTS, span_labels
from agreement.models import AgreementSnapshot

Scope = AgreementSnapshot.Scope
# the character-level columns of a label's row, in the page's order
LABEL_COLUMNS = ("char_f1", "char_kappa", "char_alpha", "unitizing_alpha")
PAIR_COLUMNS = ("span_f1_exact", "span_f1_overlap", "char_kappa_any", "unitizing_alpha_any", KENDALL_TAU)
PAIR_FIELDS = (
    "label",
    "statistic",
    "rater_a_id",
    "rater_b_id",
    "value",
    "ci_low",
    "ci_high",
    "ci_method",
    "n_units",
    "status",
    "reason",
    "unreliable",
)


def label_names(severities: tuple[str, ...]) -> dict[str, str]:
    """Each label as the page names it."""
    names = {"any": "any error"}
    names.update({s: f"{s} errors" for s in severities})
    names["severity"] = "severity scale (" + " < ".join(("no error", *severities)) + ")"
    return names


def span_section(severities: tuple[str, ...], rows: list[dict], pair_rows: list[dict], names: dict) -> dict:
    """``rows``: the latest cumulative span rows of criterion and subgroup scopes (dicts with
    ``label`` and ``detail``); ``pair_rows``: those of rater pairs (PAIR_FIELDS); ``names`` rater
    names by id. Per criterion: the span-level figures, one row per label, the spans counted and left out;
    the pair table; per subgroup, unitizing alpha on any error."""
    labels = label_names(severities)
    criteria: dict[str, dict] = defaultdict(lambda: {"span_level": {}, "labels": {}, "counts": None})
    subgroups: dict[str, dict] = defaultdict(dict)
    for s in rows:
        statistic, criterion = s["statistic"], s["label"]
        if s["scope"] == Scope.SUBGROUP_CRITERION and statistic == "unitizing_alpha_any":
            subgroups[s["subgroup"]][criterion] = s
        elif s["scope"] != Scope.CRITERION:
            continue
        elif statistic == SPAN_COUNTS:
            criteria[criterion]["counts"] = {"n": int(s["value"]), "left_out": s["detail"].get("left_out", {})}
        elif statistic.startswith("span_"):
            criteria[criterion]["span_level"][statistic] = s
        else:
            label = s["detail"].get("span_label")
            column = statistic.removesuffix(f"_{label}")
            criteria[criterion]["labels"].setdefault(label, {})[column] = s
    for figures in criteria.values():
        figures["labels"] = [
            {"name": labels[label], "label": label, **figures["labels"].get(label, {})}
            for label in span_labels(severities)
        ]
    pairs: dict[str, dict] = defaultdict(dict)
    for s in pair_rows:
        key = (s["rater_a_id"], s["rater_b_id"])
        pair = pairs[s["label"]].setdefault(
            key, {"a": names.get(key[0], str(key[0])), "b": names.get(key[1], str(key[1]))}
        )
        pair[s["statistic"]] = s
    return {
        "labels": labels,
        "criteria": dict(criteria),
        "subgroups": dict(subgroups),
        "pairs": {c: sorted(p.values(), key=lambda row: (row["a"], row["b"])) for c, p in pairs.items()},
    }
