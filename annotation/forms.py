"""Form validation for the lead pages."""
from django import forms


class ImportForm(forms.Form):
    file = forms.FileField(help_text="JSONL (one item per line) or CSV with output_1..k and system_1..k columns.")
