"""The PandaLM pairwise study (WeOpenML/PandaLM test set: 999 pairs × 3 annotators) as import lines, and
loaded through the platform's own import services. response1 is the item's first output; annotatorK is
a rater; labels 1 → model1 wins, 2 → model2 wins, 0 → tie."""

import io
import json
from collections.abc import Callable, Iterator
from pathlib import Path

from annotation.services import item_import, judgment_import
from tests.annotation.factories import ProjectFactory


def pandalm_rows(datasets: Path) -> list[dict]:
    return json.loads((datasets / "pandalm_pairwise" / "testset-v1.json").read_text(encoding="utf-8"))


def pandalm_item_lines(rows: list[dict]) -> Iterator[dict]:
    for r in rows:
        m1, m2 = r["cmp_key"].split("_", 1)
        yield {
            "external_id": str(r["idx"]),
            "input": f"{r['instruction']}\n\n{r['input']}".strip(),
            "outputs": [{"system": m1, "text": r["response1"]}, {"system": m2, "text": r["response2"]}],
            "subgroup": r["motivation_app"],
        }


def pandalm_judgment_lines(rows: list[dict], submitted_at: Callable[[dict], str] | None = None) -> Iterator[dict]:
    """``submitted_at(row)`` dates a pair's judgments (PandaLM publishes no timestamps)."""
    for r in rows:
        systems = r["cmp_key"].split("_", 1)
        for k in (1, 2, 3):
            label = r[f"annotator{k}"]
            line = {
                "item": str(r["idx"]),
                "rater": f"annotator{k}",
                "criterion": "overall",
                "value": "tie" if label == 0 else systems[label - 1],
            }
            if submitted_at is not None:
                line["submitted_at"] = submitted_at(r)
            yield line


def _jsonl(records) -> io.BytesIO:
    return io.BytesIO("".join(json.dumps(r) + "\n" for r in records).encode())


def load_pandalm(datasets, **project_fields):
    rows = pandalm_rows(datasets)
    project = ProjectFactory(
        task_type="pairwise", criteria=["overall"], raters_per_item=3, double_annotation_share=1.0, **project_fields
    )
    item_import(project=project, stream=_jsonl(pandalm_item_lines(rows)))
    judgment_import(project=project, stream=_jsonl(pandalm_judgment_lines(rows)))
    return project, rows
