"""Turn the shared real datasets into the platform's import files and load them through its own
import services (items, judgments, metric scores, judge ratings)."""

import csv
import io
import json
from pathlib import Path

from annotation.models import Membership, Project
from annotation.services import item_import, judgment_import, project_create
from evaluation.services import judge_rating_import, metric_score_import
from tests.agreement.pandalm import pandalm_item_lines, pandalm_judgment_lines, pandalm_rows

HANNA_CRITERIA = ["Relevance", "Coherence", "Empathy", "Surprise", "Engagement", "Complexity"]
HANNA_CODES = {
    "RE": "Relevance",
    "CH": "Coherence",
    "EM": "Empathy",
    "SU": "Surprise",
    "EG": "Engagement",
    "CX": "Complexity",
}
HANNA_LLMS = ["Beluga-13B", "OrcaPlatypus", "Mistral-7B", "Llama-13B", "ChatGPT"]


def lines(records) -> io.BytesIO:
    return io.BytesIO("".join(json.dumps(r) + "\n" for r in records).encode())


def new_project(lead, name, task_type, criteria) -> Project:
    project = project_create(created_by=lead, name=name, task_type=task_type, criteria=criteria)
    Membership.objects.get_or_create(project=project, user=lead, defaults={"role": Membership.Role.LEAD})
    return project


# --- HANNA ----------------------------------------------------------------------------------------


def hanna_table(folder: Path) -> list[dict]:
    """The rows of hanna_metric_scores_llm.csv (one per system), each cell decoded to its 96 values."""
    # Its cells hold whole JSON lists, past csv's default field limit; the limit is process-wide, so it
    # is put back for the code under test (the bulk-account reader relies on it).
    default_limit = csv.field_size_limit(1 << 30)
    try:
        with open(folder / "hanna_story_eval" / "hanna_metric_scores_llm.csv", encoding="utf-8") as f:
            return [{k: (v if k == "Model" else json.loads(v)) for k, v in row.items()} for row in csv.DictReader(f)]
    finally:
        csv.field_size_limit(default_limit)


def hanna_metric_names(table) -> list[str]:
    names = list(table[0])
    return names[names.index("Complexity") + 1 : names.index("Human 1 RE")]


def load_hanna(lead, folder: Path, *, judges=HANNA_LLMS, judge_variant=1):
    """HANNA as a likert project: an item per prompt (96) with the 11 systems' stories as outputs,
    every rating slot as a rater, the 72 metrics as wide CSV columns, LLM ratings as model judges."""
    table = hanna_table(folder)
    systems = [row["Model"] for row in table]
    with open(folder / "hanna_story_eval" / "hanna_prompts_human_stories.csv", encoding="utf-8") as f:
        prompts = {int(r["prompt_index"]): r for r in csv.DictReader(f)}
    project = new_project(
        lead, "HANNA", "likert", [{"name": c, "scale_min": 1, "scale_max": 5} for c in HANNA_CRITERIA]
    )
    item_import(
        project=project,
        stream=lines(
            {
                "external_id": f"prompt-{p}",
                "input": prompts[p]["prompt"],
                # only the Human stories ship with the dataset; the generated texts are not in it
                "outputs": [{"system": s, "text": prompts[p]["human_story"] if s == "Human" else ""} for s in systems],
            }
            for p in range(96)
        ),
    )
    with open(folder / "hanna_story_eval" / "hanna_ratings_long.csv", encoding="utf-8") as f:
        ratings = list(csv.DictReader(f))
    judgment_import(
        project=project,
        stream=lines(
            {
                "item": f"prompt-{int(r['story_id']) % 96}",
                "system": systems[int(r["story_id"]) // 96],
                "rater": f"slot{r['rater_slot']}",
                "criterion": r["criterion"],
                "value": int(r["score"]),
            }
            for r in ratings
        ),
    )
    metrics = hanna_metric_names(table)
    wide = io.StringIO()
    writer = csv.writer(wide)
    writer.writerow(["item", "system", *metrics])
    for row in table:
        for p in range(96):
            writer.writerow([f"prompt-{p}", row["Model"], *(repr(float(row[m][p])) for m in metrics)])
    metric_score_import(project=project, stream=io.BytesIO(wide.getvalue().encode()), fmt="csv")
    # An LLM answer HANNA could not parse is averaged in as 0 (e.g. 0.67 = two failures and a 2): such
    # values are off the 1-5 scale, so they are left out as "not rated" rather than imported.
    judge_lines = [
        {
            "judge": f"{llm} #{judge_variant}",
            "kind": "llm",
            "item": f"prompt-{p}",
            "system": row["Model"],
            "criterion": name,
            "value": row[f"{llm} {code} {judge_variant}"][p],
        }
        for llm in judges
        for row in table
        for code, name in HANNA_CODES.items()
        for p in range(96)
    ]
    judge_rating_import(project=project, stream=lines(r for r in judge_lines if 1 <= r["value"] <= 5))
    return project, table, metrics, len(ratings)


# --- PandaLM --------------------------------------------------------------------------------------


def load_pandalm(lead, folder: Path):
    """PandaLM as a pairwise project (see tests/agreement/pandalm.py for the mapping)."""
    data = pandalm_rows(folder)
    project = new_project(lead, "PandaLM", "pairwise", [{"name": "overall"}])
    item_import(project=project, stream=lines(pandalm_item_lines(data)))
    judgment_import(project=project, stream=lines(pandalm_judgment_lines(data)))
    return project, data


# --- SQuALITY -------------------------------------------------------------------------------------

SQUALITY_CRITERIA = ["correctness", "selection", "overall"]


def squality_records(folder: Path):
    """(items, ratings): items as import lines with their 4 references; ratings as
    (item, system, worker, criterion, value)."""
    refs = {}
    with open(folder / "squality_humaneval" / "references.jsonl", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            refs.setdefault((r["passage_id"], int(r["question"])), []).append(
                (r["ref_index"], r["reference"], r["question_text"])
            )
    items, ratings = [], []
    with open(folder / "squality_humaneval" / "all-responses.jsonl", encoding="utf-8") as f:
        for line in f:
            story = json.loads(line)
            for q, systems in story["questions"].items():
                key = (story["passage-id"], int(q))
                external_id = f"{story['passage-id']}-q{q}"
                references = [text for _, text, _ in sorted(refs[key])]
                items.append(
                    {
                        "external_id": external_id,
                        "input": sorted(refs[key])[0][2],
                        "references": references,
                        "outputs": [{"system": s, "text": v["response"]} for s, v in sorted(systems.items())],
                    }
                )
                for system, v in systems.items():
                    for review in v["reviews"]:
                        for c in SQUALITY_CRITERIA:
                            ratings.append((external_id, system, review["worker_id"], c, float(review[f"{c}-rating"])))
    return items, ratings


def load_squality(lead, folder: Path):
    """SQuALITY as a rankme project (three responses side by side, 0–100 sliders)."""
    items, ratings = squality_records(folder)
    project = new_project(
        lead, "SQuALITY", "rankme", [{"name": c, "scale_min": 0, "scale_max": 100} for c in SQUALITY_CRITERIA]
    )
    item_import(project=project, stream=lines(items))
    judgment_import(
        project=project,
        stream=lines(
            {"item": i, "system": s, "rater": str(w), "criterion": c, "value": v} for i, s, w, c, v in ratings
        ),
    )
    return project, items, ratings


# --- RankME / E2E ---------------------------------------------------------------------------------


def load_rankme(lead, folder: Path, condition="stp2_rankME_inf"):
    """One RankME condition (3 outputs of an MR side by side, magnitude estimates) as a rankme project."""
    with open(folder / "rankme_e2e" / "rankme_items.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    with open(folder / "rankme_e2e" / "rankme_ratings_long.csv", encoding="utf-8") as f:
        ratings = [r for r in csv.DictReader(f) if r["file"] == condition]
    criterion = ratings[0]["criterion"]
    project = new_project(
        lead, f"RankME {condition}", "rankme", [{"name": criterion, "scale_min": 0, "scale_max": 200}]
    )
    by_mr = {}
    for r in rows:
        by_mr.setdefault(r["mr_id"], {"mr": r["mr"], "outputs": []})["outputs"].append(
            {"system": r["system"], "text": r["output"]}
        )
    item_import(
        project=project,
        stream=lines({"external_id": mr, "input": v["mr"], "outputs": v["outputs"]} for mr, v in by_mr.items()),
    )
    judgment_import(
        project=project,
        stream=lines(
            {
                "item": r["mr_id"],
                "system": r["system"],
                "rater": r["worker_id"],
                "criterion": criterion,
                "value": float(r["score"]),
            }
            for r in ratings
        ),
    )
    return project, criterion, ratings
