"""Exclusions move from the membership row (deleted when a rater leaves the team) to a table of their own."""
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models
from django.utils import timezone


def memberships_to_exclusions(apps, schema_editor):
    Membership = apps.get_model("annotation", "Membership")
    RaterExclusion = apps.get_model("annotation", "RaterExclusion")
    now = timezone.now()
    RaterExclusion.objects.bulk_create(
        [RaterExclusion(project_id=project_id, rater_id=user_id, created_at=now)
         for project_id, user_id in Membership.objects.filter(is_excluded=True).values_list("project_id", "user_id")],
        batch_size=1000)


def exclusions_to_memberships(apps, schema_editor):
    """Back to the flag; an exclusion of a rater who is no longer a member has nowhere to go and is lost."""
    Membership = apps.get_model("annotation", "Membership")
    RaterExclusion = apps.get_model("annotation", "RaterExclusion")
    for project_id, rater_id in RaterExclusion.objects.values_list("project_id", "rater_id"):
        Membership.objects.filter(project_id=project_id, user_id=rater_id).update(is_excluded=True)


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0011_project_randomise_order"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="RaterExclusion",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("created_at", models.DateTimeField()),
                ("project", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE,
                                              related_name="rater_exclusions", to="annotation.project")),
                ("rater", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE,
                                            related_name="qc_exclusions", to=settings.AUTH_USER_MODEL)),
            ],
            options={
                "ordering": ["project_id", "rater_id"],
                "constraints": [models.UniqueConstraint(fields=("project", "rater"),
                                                        name="raterexclusion_one_per_rater_in_project")],
            },
        ),
        migrations.RunPython(memberships_to_exclusions, exclusions_to_memberships),
        migrations.RemoveField(model_name="membership", name="is_excluded"),
    ]
