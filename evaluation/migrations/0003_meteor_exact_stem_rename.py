"""METEOR now matches WordNet synonyms too: the scores Concord computed before under "meteor"
(exact and stem matches only) are a different metric, so they, and the calibrators and metric
judges built on them, move to the name "meteor_exact_stem". Imported "meteor" scores are left alone."""

from django.db import migrations

OLD, NEW = "meteor", "meteor_exact_stem"


def _rename(apps, old, new):
    MetricScore = apps.get_model("evaluation", "MetricScore")
    Calibrator = apps.get_model("evaluation", "Calibrator")
    Judge = apps.get_model("evaluation", "Judge")
    computed = MetricScore.objects.filter(name=old, source="computed")
    projects = set(computed.values_list("project_id", flat=True).distinct())
    computed.update(name=new)
    for calibrator in Calibrator.objects.filter(project_id__in=projects):
        features = calibrator.params.get("features", [])
        if old in features:
            calibrator.params["features"] = [new if f == old else f for f in features]
            calibrator.save(update_fields=["params"])
    for judge in Judge.objects.filter(project_id__in=projects, kind="metric"):
        if judge.config.get("metric") == old:
            judge.config["metric"] = new
            judge.save(update_fields=["config"])


def forwards(apps, schema_editor):
    _rename(apps, OLD, NEW)


def backwards(apps, schema_editor):
    MetricScore = apps.get_model("evaluation", "MetricScore")
    # the synonym METEOR's rows give way to the old ones they replaced
    projects = MetricScore.objects.filter(name=NEW).values_list("project_id", flat=True).distinct()
    MetricScore.objects.filter(name=OLD, source="computed", project_id__in=list(projects)).delete()
    _rename(apps, NEW, OLD)


class Migration(migrations.Migration):
    dependencies = [("evaluation", "0002_export")]

    operations = [migrations.RunPython(forwards, backwards)]
