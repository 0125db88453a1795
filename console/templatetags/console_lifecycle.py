"""``{% lifecycle_actions project as actions %}``: the status changes a lead may make now, with their
button texts, for the project page."""
from django import template

from annotation.selectors import project_create_allowed
from console.services import TRANSITIONS

register = template.Library()

BUTTONS = {"live": "Make live", "paused": "Pause", "closed": "Close the project"}


@register.simple_tag
def lifecycle_actions(project) -> list[tuple[str, str]]:
    return [(status, BUTTONS[status]) for status in TRANSITIONS[project.status]]


@register.simple_tag
def may_create_projects(user) -> bool:
    return project_create_allowed(user)
