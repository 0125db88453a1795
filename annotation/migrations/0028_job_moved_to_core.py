"""The Job model now lives in core (core 0001); annotation forgets it. State only: the table stays."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0027_membership_screens_counted'),
        ('core', '0001_job'),
        ('evaluation', '0008_export_job_in_core'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name='Job')],
            database_operations=[],
        ),
    ]
