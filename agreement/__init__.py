"""Inter-annotator agreement: the statistics library, weekly snapshots, their jobs and dashboards."""
