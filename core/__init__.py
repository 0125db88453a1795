"""What every app uses; so far, the checks of text and values from outside (core.outside_text) and the lookup
by name through which services queue their jobs (core.job_queue)."""
