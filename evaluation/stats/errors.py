"""The error raised when data carry too little information for a statistic."""


class InsufficientDataError(ValueError):
    """Too little information for the statistic (no pair to compare, one system, a constant
    variable, ...); the message says what is missing. Services report it, never a silent NaN."""
