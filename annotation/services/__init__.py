"""Every write path of the annotation app."""

from .assignment import (
    AssignmentNotFound,
    LeaseGone,
    NotARater,
    NotYourAssignment,
    ProfileDeclined,
    ProfileNeeded,
    ProjectNotFound,
    ProjectNotLive,
    RaterNotAdmitted,
    RaterPaused,
    RaterRefused,
    assignment_expire,
    assignment_leases_release,
    assignment_next_for_rater,
    rater_membership_check,
)
from .controls import degraded_controls_create
from .item_flag import item_flag_create
from .item_import import item_import
from .judgment_import import judgment_import
from .judgment_submit import SubmittedJudgment, judgment_submit
from .lease_ahead import LeasesAhead, assignment_ahead_for_rater
from .project import criterion_names_carry, membership_set, project_create
from .qualification import qualification_decide, rater_admit
from .quality import (
    LEAD_ACTIONS,
    qc_rules_apply,
    qc_rules_apply_all,
    qc_rules_update,
    rater_exclude,
    rater_include,
    rater_pause,
    rater_resume,
)

__all__ = [
    "item_import",
    "judgment_import",
    "membership_set",
    "criterion_names_carry",
    "project_create",
    "ProfileDeclined",
    "ProfileNeeded",
    "AssignmentNotFound",
    "LeaseGone",
    "NotARater",
    "NotYourAssignment",
    "ProjectNotFound",
    "ProjectNotLive",
    "RaterPaused",
    "RaterNotAdmitted",
    "qualification_decide",
    "rater_admit",
    "RaterRefused",
    "SubmittedJudgment",
    "assignment_expire",
    "assignment_leases_release",
    "assignment_next_for_rater",
    "assignment_ahead_for_rater",
    "LeasesAhead",
    "item_flag_create",
    "judgment_submit",
    "rater_membership_check",
    "LEAD_ACTIONS",
    "qc_rules_apply",
    "qc_rules_apply_all",
    "qc_rules_update",
    "rater_exclude",
    "rater_include",
    "rater_pause",
    "rater_resume",
    "degraded_controls_create",
]
