"""Export.job points at the Job model where it now lives (core); the column and its constraint are unchanged."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('core', '0001_job'),
        ('evaluation', '0007_pair_votes'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='export',
                    name='job',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='core.job'),
                ),
            ],
            database_operations=[],
        ),
    ]
