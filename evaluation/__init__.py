"""Per-system results, pairwise models, automatic metrics, metric calibration, export and data cards."""
