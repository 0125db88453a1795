"""``{% lifecycle_actions project as actions %}``: the status changes a lead may make now, with their
button texts, for the project page."""

from django import template

from annotation.selectors import project_create_allowed
from console.services import TRANSITIONS, project_delete_allowed

register = template.Library()

BUTTONS = {"live": "Make live", "paused": "Pause", "closed": "Close the project"}
DRAFT_BUTTONS = {**BUTTONS, "closed": "Close the draft"}


@register.simple_tag
def lifecycle_actions(project) -> list[tuple[str, str]]:
    buttons = DRAFT_BUTTONS if project.status == project.Status.DRAFT else BUTTONS
    return [(status, buttons[status]) for status in TRANSITIONS[project.status]]


@register.simple_tag
def may_create_projects(user) -> bool:
    return project_create_allowed(user)


@register.simple_tag
def may_delete_projects(user) -> bool:
    return project_delete_allowed(user)
