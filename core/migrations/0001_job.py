"""The Job model moves here from annotation: state only, its table (annotation_job) is kept as it is.

Its content type follows it, so that its permissions and admin log entries stay attached.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def _move_content_type(apps, source, target):
    ContentType = apps.get_model("contenttypes", "ContentType")
    if not ContentType.objects.filter(app_label=target, model="job").exists():
        ContentType.objects.filter(app_label=source, model="job").update(app_label=target)


def content_type_to_core(apps, schema_editor):
    _move_content_type(apps, "annotation", "core")


def content_type_to_annotation(apps, schema_editor):
    _move_content_type(apps, "core", "annotation")


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('annotation', '0027_membership_screens_counted'),
        ('contenttypes', '0002_remove_content_type_name'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='Job',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('kind', models.CharField(max_length=64)),
                        ('state', models.CharField(choices=[('pending', 'Pending'), ('running', 'Running'), ('success', 'Success'), ('failure', 'Failure')], default='pending', max_length=8)),
                        ('progress', models.FloatField(default=0.0, help_text='Share done, 0 to 1.')),
                        ('message', models.CharField(blank=True, max_length=500)),
                        ('params', models.JSONField(blank=True, default=dict)),
                        ('result', models.JSONField(blank=True, default=dict)),
                        ('error', models.TextField(blank=True)),
                        ('celery_id', models.CharField(blank=True, max_length=64)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('started_at', models.DateTimeField(blank=True, null=True)),
                        ('finished_at', models.DateTimeField(blank=True, null=True)),
                        ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                        ('project', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='jobs', to='annotation.project')),
                    ],
                    options={
                        'db_table': 'annotation_job',
                        'ordering': ['-id'],
                        'indexes': [models.Index(fields=['project', 'kind', '-created_at'], name='job_project_kind_time')],
                        'constraints': [models.CheckConstraint(condition=models.Q(('progress__gte', 0), ('progress__lte', 1)), name='job_progress_in_unit_interval')],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(content_type_to_core, content_type_to_annotation),
    ]
