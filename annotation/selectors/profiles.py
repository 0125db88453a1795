"""Reads of rater profiles: a project's form, a rater's own answers, and every rater's value of one field."""

from annotation.models import Judgment, Membership, ProfileField, Project, RaterProfile

from .quality import excluded_rater_ids


def profile_study_started(project: Project) -> bool:
    """A rater has answered the form or judged on this platform: the form is fixed from then on."""
    return (
        RaterProfile.objects.filter(membership__project=project).exists()
        or Judgment.objects.filter(project=project, source=Judgment.Source.RATER).exists()
    )


def profile_form(project: Project) -> dict:
    fields = [
        {"name": f.name, "kind": f.kind, "choices": list(f.choices), "required": f.required, "sensitive": f.sensitive}
        for f in ProfileField.objects.filter(project=project)
    ]
    return {"consent": project.profile_consent, "fields": fields, "started": profile_study_started(project)}


def rater_profile_of(membership: Membership) -> dict | None:
    profile = RaterProfile.objects.filter(membership=membership).first()
    return None if profile is None else {"consented": profile.consented, "answers": profile.answers}


def profile_values(project: Project, field_name: str) -> dict[int, object]:
    """Rater (user id) → their answer to ``field_name``, for the raters who consented and answered it (raters
    quality control excluded are left out, as in every result)."""
    excluded = set(excluded_rater_ids(project))
    return {
        user: answers[field_name]
        for user, answers in rater_profile_answers(project).items()
        if field_name in answers and user not in excluded
    }


def profile_fields(project: Project) -> list[ProfileField]:
    return list(ProfileField.objects.filter(project=project))


def rater_profile_answers(project: Project) -> dict[int, dict]:
    """Rater (user id) → their answers, for every rater who consented."""
    return dict(
        RaterProfile.objects.filter(membership__project=project, consented=True).values_list(
            "membership__user_id", "answers"
        )
    )
