"""Session keys of the rater pages that other apps may set, so annotation need not know those apps.

``AFTER_FINISHED``: per project, a URL of this site where a rater with nothing left to judge is sent
instead of the finished screen (staffing sends crowd workers to their completion code this way).
"""
AFTER_FINISHED = "after-finished-{}"
