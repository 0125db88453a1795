from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('agreement', '0003_snapshot_detail'),
        ('annotation', '0011_project_randomise_order'),
    ]

    operations = [
        migrations.AddField(
            model_name='agreementalert',
            name='attempts',
            field=models.PositiveIntegerField(default=0),
        ),
        # Alerts stored before delivery was tracked: whether their email went out is not known, and
        # mailing weeks-old alerts now would mislead, so they count as not emailed.
        migrations.AddField(
            model_name='agreementalert',
            name='delivery',
            field=models.CharField(choices=[('pending', 'email not sent yet'), ('sent', 'emailed'), ('not_emailed', 'not emailed')], default='not_emailed', max_length=16),
        ),
        migrations.AlterField(
            model_name='agreementalert',
            name='delivery',
            field=models.CharField(choices=[('pending', 'email not sent yet'), ('sent', 'emailed'), ('not_emailed', 'not emailed')], default='pending', max_length=16),
        ),
        migrations.AddField(
            model_name='agreementalert',
            name='last_attempt_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='agreementalert',
            name='last_error',
            field=models.CharField(blank=True, max_length=500),
        ),
        migrations.AddField(
            model_name='agreementalert',
            name='sent_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddIndex(
            model_name='agreementalert',
            index=models.Index(condition=models.Q(('delivery', 'pending')), fields=['delivery'], name='alert_pending_delivery'),
        ),
    ]
