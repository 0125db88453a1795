"""Loads the PandaLM pairwise study (WeOpenML/PandaLM test set: 999 pairs × 3 annotators) through the
platform's own import services."""
import io
import json

from annotation.services import item_import, judgment_import
from tests.annotation.factories import ProjectFactory


def _jsonl(records) -> io.BytesIO:
    return io.BytesIO("".join(json.dumps(r) + "\n" for r in records).encode())


def load_pandalm(datasets, **project_fields):
    rows = json.loads((datasets / "pandalm_pairwise" / "testset-v1.json").read_text())
    project = ProjectFactory(task_type="pairwise", criteria=["overall"], raters_per_item=3,
                             double_annotation_share=1.0, **project_fields)
    items, judgments = [], []
    for r in rows:
        m1, m2 = r["cmp_key"].split("_", 1)
        items.append({"external_id": str(r["idx"]), "input": r["instruction"] + "\n\n" + r["input"],
                      "outputs": [{"system": m1, "text": r["response1"]}, {"system": m2, "text": r["response2"]}],
                      "subgroup": r["motivation_app"]})
        judgments += [{"item": str(r["idx"]), "rater": f"annotator{k}", "criterion": "overall",
                       "value": {1: m1, 2: m2, 0: "tie"}[r[f"annotator{k}"]]} for k in (1, 2, 3)]
    item_import(project=project, stream=_jsonl(items))
    judgment_import(project=project, stream=_jsonl(judgments))
    return project, rows
