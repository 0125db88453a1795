"""The exception raised when data carry too little information for a statistic."""


class InsufficientDataError(ValueError):
    """The data are well formed but too thin for the statistic to be defined.

    Raised, with a message that says what is missing, for an empty matrix, no unit rated by at
    least two raters, a single category (or value) in use, or too few complete units. Services
    store such a snapshot as "insufficient data"; the statistics never return a silent NaN.
    It is a :class:`ValueError`, so callers that only care about bad input can catch that.
    """
