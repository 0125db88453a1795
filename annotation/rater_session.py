"""Session keys of the rater pages that other apps may set, so annotation need not know those apps.

``AFTER_FINISHED``: per project, a URL of this site where a rater with nothing left to judge is sent
instead of the finished screen (staffing sends crowd workers to their completion code this way).

``RETURN_LINK``: per project, a URL outside this site where a rater the qualification gate keeps out goes
back to (a crowd platform's return link, which staffing sets when the worker enters); it never carries a
completion code.
"""

AFTER_FINISHED = "after-finished-{}"
RETURN_LINK = "return-link-{}"
