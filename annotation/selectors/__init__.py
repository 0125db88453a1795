"""Every non-trivial read of the annotation app."""

from .assignments import (
    assignment_answers,
    assignment_get_for_rater,
    assignment_previous_for_rater,
    assignment_screen,
    item_flag_list_for_project,
    judgment_screen_values,
    rater_progress,
    rater_progress_for_project,
    rater_project_list,
    screen_modulus,
    screen_questions,
)
from .items import item_list_for_project, items_as_chat_lines
from .judgments import judgment_list_for_project, rater_names_for_project
from .projects import (
    project_create_allowed,
    project_get_for_lead,
    project_get_for_user,
    project_list_for_user,
    project_role,
)
from .quality import (
    excluded_rater_ids,
    gold_accuracy,
    included_judgments,
    qc_rules_current,
    qc_rules_defaults,
    rater_action_list,
    rater_quality_report,
)
from .rater_loop import project_lock_shared

__all__ = [
    "item_list_for_project",
    "items_as_chat_lines",
    "project_create_allowed",
    "judgment_list_for_project",
    "project_get_for_lead",
    "project_get_for_user",
    "project_lock_shared",
    "project_list_for_user",
    "project_role",
    "rater_names_for_project",
    "assignment_answers",
    "assignment_get_for_rater",
    "assignment_previous_for_rater",
    "assignment_screen",
    "item_flag_list_for_project",
    "judgment_screen_values",
    "rater_progress",
    "rater_progress_for_project",
    "rater_project_list",
    "screen_modulus",
    "screen_questions",
    "excluded_rater_ids",
    "gold_accuracy",
    "included_judgments",
    "qc_rules_current",
    "qc_rules_defaults",
    "rater_action_list",
    "rater_quality_report",
]
