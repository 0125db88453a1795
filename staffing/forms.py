"""The crowd-link page's settings form: it parses the input for the page; external_link_configure applies it."""

from django import forms


class ExternalLinkForm(forms.Form):
    max_identities = forms.IntegerField(
        required=False,
        min_value=1,
        label="Most worker IDs in all",
        help_text="New worker IDs are refused once the link has admitted this many. Empty: no cap.",
    )
    max_identities_per_address = forms.IntegerField(
        required=False,
        min_value=1,
        label="Most worker IDs per client address",
        help_text="Counted by a keyed hash of the address; the address itself is not stored. Empty: no cap.",
    )
    prolific_study_id = forms.CharField(
        required=False,
        max_length=64,
        label="Prolific study ID",
        help_text="When set, entries need Prolific's PROLIFIC_PID, this STUDY_ID and a SESSION_ID, and each "
        "Prolific session admits one worker ID.",
    )
    signed = forms.BooleanField(
        required=False,
        label="Require a signed entry",
        help_text="For platforms (or your own survey page) that can sign the link: each entry must carry a sig "
        "parameter, the HMAC-SHA256 of the worker ID keyed with the secret shown below, in hex, so that only "
        "whoever holds the secret can make a link that admits someone.",
    )
    return_url = forms.URLField(
        required=False,
        max_length=500,
        assume_scheme="https",
        label="Return link for workers not admitted",
        help_text="Where a worker below the training pass mark goes back to the platform (Prolific: the study's "
        "screened-out or no-code completion link). Never put the completion code in it.",
    )
    min_judged_screens = forms.IntegerField(min_value=1, label="Judged screens needed for the completion code")
    max_screens_per_worker = forms.IntegerField(
        required=False,
        min_value=1,
        label="Screens per worker in this batch (optional)",
        help_text="Each worker admitted from now on is served at most this many screens (what you pay them for); "
        "workers admitted before keep theirs. Empty: the project's maximum.",
    )
    max_unjudged_percent = forms.FloatField(
        min_value=0,
        max_value=100,
        label="Screens a worker may flag or leave unanswered (%)",
        help_text="A share of the screens they were shown; a worker above it is not shown the completion code.",
    )

    @classmethod
    def for_link(cls, link, data=None):
        initial = {
            name: getattr(link, name)
            for name in (
                "max_identities",
                "max_identities_per_address",
                "prolific_study_id",
                "return_url",
                "min_judged_screens",
                "max_screens_per_worker",
            )
        }
        initial["signed"] = bool(link.signing_secret)
        initial["max_unjudged_percent"] = round(link.max_unjudged_share * 100, 4)
        return cls(data, initial=initial)

    def settings(self) -> dict:
        data = self.cleaned_data
        return {
            "max_identities": data["max_identities"],
            "max_identities_per_address": data["max_identities_per_address"],
            "prolific_study_id": data["prolific_study_id"].strip(),
            "signed": data["signed"],
            "return_url": data["return_url"],
            "min_judged_screens": data["min_judged_screens"],
            "max_screens_per_worker": data["max_screens_per_worker"],
            "max_unjudged_share": data["max_unjudged_percent"] / 100,
        }
