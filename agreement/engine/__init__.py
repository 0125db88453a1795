"""The agreement engine: a project's judgment records in, snapshot rows out, with no Django (an
import-linter contract holds it). One scope walker (``walker``) over a data source that gives each
scope's data as a reliability matrix (``matrix_source``) or as per-unit category counts
(``counts_source``); each statistic of the plan (``statistics``) says whether it can run from counts."""
