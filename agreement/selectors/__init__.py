"""Reads of the agreement app: judgments as numpy arrays, stored snapshots for pages and the API."""
