"""``{% lead_nav_groups project here as groups %}``: the lead's pages of a project in labelled groups, each link
with its URL and whether it is the page ``here`` names."""

from dataclasses import dataclass

from django import template
from django.urls import reverse

register = template.Library()

# (group label, ((here, URL name, link text), ...)); every lead page names one of these ``here`` keys.
GROUPS = (
    (
        "Set up",
        (
            ("project", "project-detail", "Overview"),
            ("settings", "console-project-settings", "Settings"),
            ("upload", "console-item-upload", "Upload items"),
            ("items", "console-items", "Items"),
            ("team", "staffing-team", "Team"),
            ("allocation", "console-allocation", "Allocation"),
            ("profile", "profile-form", "Rater profile"),
        ),
    ),
    (
        "Run",
        (
            ("progress", "console-progress", "Progress"),
            ("quality", "rater-quality", "Quality control"),
            ("adjudication", "adjudication", "Adjudication"),
            ("try", "console-project-try", "Try as a rater"),
            ("audit", "audit-log", "Audit log"),
        ),
    ),
    (
        "Analysis",
        (
            ("agreement", "agreement-dashboard", "Agreement"),
            ("results", "evaluation-results", "Results"),
            ("judges", "evaluation-judges", "Judges"),
            ("metrics", "evaluation-metric-inputs", "Metrics"),
            ("plan", "evaluation-plan", "Study plan"),
            ("export", "evaluation-export", "Export"),
        ),
    ),
)


@dataclass(frozen=True)
class NavLink:
    url: str
    text: str
    current: bool


@dataclass(frozen=True)
class NavGroup:
    label: str
    slug: str
    links: tuple[NavLink, ...]

    @property
    def current(self) -> bool:
        return any(link.current for link in self.links)


@register.simple_tag
def lead_nav_groups(project, here: str) -> tuple[NavGroup, ...]:
    return tuple(
        NavGroup(
            label=label,
            slug=label.lower().replace(" ", "-"),
            links=tuple(
                NavLink(url=reverse(name, args=[project.pk]), text=text, current=key == here)
                for key, name, text in links
            ),
        )
        for label, links in GROUPS
    )
