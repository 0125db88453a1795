"""A real study's span agreement through the recompute: WMT23's side-by-side MQM en-de (1,040 segments, 3 raters
each; texts replaced by placeholders of the recorded lengths) stored as an MQM project's judgments and spans. The
stored figures reproduce the folder's reference values (interval alpha on the segment MQM scores, character F1)
and equal agreement.stats on the same spans (which tests/agreement/stats/test_span_datasets.py checks)."""

import json

import numpy as np
import pytest
from django.utils import timezone

from agreement.models import AgreementSnapshot
from agreement.services import snapshot_compute_for_project
from agreement.stats.spans import span_agreement
from annotation.models import ErrorSpan, Item, Judgment, Output
from evaluation.stats import MAROT_MQM_WEIGHTS, mqm_row_weights
from tests.agreement.services.test_span_snapshots import error_span_project
from tests.annotation.factories import UserFactory
from tests.evaluation.datasets.error_spans import check_sums, load_sxs, placeholder, sxs_target_spans

pytestmark = pytest.mark.django_db


def test_wmt23_side_by_side_mqm_en_de(datasets):
    folder = datasets / "mqm_sxs_wmt23"
    check_sums(folder)
    ref = json.loads((folder / "expected_values.json").read_text())["reproduced"][
        "agreement_computed_here_not_published"
    ]["en-de"]
    data = load_sxs(folder, "ende")
    project = error_span_project("mqm")
    criterion = project.criteria.get()
    items = Item.objects.bulk_create(
        Item(
            project=project, external_id=f"{s['system']}|{s['global_seg_id']}", input=placeholder(int(s["source_len"]))
        )
        for s in data.segments
    )
    outputs = Output.objects.bulk_create(
        Output(item=item, position=0, system=s["system"], text=placeholder(int(s["target_len"])))
        for item, s in zip(items, data.segments, strict=True)
    )
    output_of = {(s["system"], s["global_seg_id"]): o for s, o in zip(data.segments, outputs, strict=True)}
    raters = {name: UserFactory(username=f"sxs-{name}") for name in sorted({r.rater for r in data.rows})}
    # a rating's value is its MQM score with the weights the reference used (Marot et al.)
    weights = mqm_row_weights(
        [r.severity for r in data.rows], [r.category for r in data.rows], weights=MAROT_MQM_WEIGHTS
    )
    score = {}
    for row, weight in zip(data.rows, weights, strict=True):
        key = (row.system, row.segment, row.rater)
        score[key] = score.get(key, 0.0) + weight
    now = timezone.now()
    judgments = Judgment.objects.bulk_create(
        Judgment(
            project=project,
            item=output_of[s, g].item,
            output=output_of[s, g],
            criterion=criterion,
            rater=raters[r],
            value=value,
            submitted_at=now,
        )
        for (s, g, r), value in score.items()
    )
    judgment_of = dict(zip(score, judgments, strict=True))
    positioned = [r for r in data.rows if r.start is not None]
    ErrorSpan.objects.bulk_create(
        ErrorSpan(
            judgment=judgment_of[r.system, r.segment, r.rater],
            side=r.side,
            start=r.start,
            end=r.end,
            severity=r.severity.lower(),
            category=r.category,
        )
        for r in positioned
    )

    snapshot_compute_for_project(project_id=project.id)

    stored = {
        s.statistic: s
        for s in AgreementSnapshot.objects.filter(project=project, scope="criterion", window="cumulative")
    }
    assert stored["krippendorff_alpha_interval"].is_main
    assert stored["krippendorff_alpha_interval"].value == pytest.approx(
        ref["krippendorff_alpha_interval_segment_mqm"], abs=5e-5
    )
    assert stored["char_f1_any"].value == pytest.approx(ref["char_f1_target_spans"], abs=5e-5)
    library = span_agreement(sxs_target_spans(data), n_resamples=0)
    for name, (statistic, label) in (
        ("unitizing_alpha_any", ("unitizing_alpha", "any")),
        ("char_alpha_severity", ("alpha", "severity")),
        ("char_kappa_major", ("kappa", "major")),
    ):
        assert stored[name].value == pytest.approx(library.get(statistic, label).value, abs=1e-9)
        assert stored[name].ci_low < stored[name].value < stored[name].ci_high
        assert stored[name].n_units == 1040 and stored[name].n_raters == len(raters)
    n_source = sum(r.side == "source" for r in positioned)
    assert stored["span_counts"].detail["left_out"] == ({"source side": n_source} if n_source else {})
    assert stored["span_counts"].value == sum(r.side == "target" for r in positioned)
    pairs = AgreementSnapshot.objects.filter(
        project=project, scope="pair", window="cumulative", statistic="unitizing_alpha_any"
    )
    assert pairs.count() >= 10 and all(p.status == "ok" for p in pairs)
    # the raters' MQM scores rank the segments alike more often than not
    taus = np.array(
        AgreementSnapshot.objects.filter(
            project=project, scope="pair", window="cumulative", statistic="kendall_tau"
        ).values_list("value", flat=True)
    )
    assert len(taus) == pairs.count() and np.nanmedian(taus.astype(float)) > 0
