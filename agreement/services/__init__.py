"""Write paths of the agreement app."""
from .recompute import agreement_recompute_start
from .snapshots import snapshot_compute_for_project

__all__ = ["agreement_recompute_start", "snapshot_compute_for_project"]
