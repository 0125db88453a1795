"""The names an agreement row carries: its window, scope, rating unit and status (the choices of
``agreement.models.AgreementSnapshot``, which takes them from here), and when a figure is unreliable."""

# Scopes with fewer pairable units than this are computed and shown, but flagged as unreliable.
MIN_RELIABLE_UNITS = 30


class Window:
    WEEK = "week"
    CUMULATIVE = "cumulative"


class Scope:
    OVERALL = "overall"
    CRITERION = "criterion"
    SUBGROUP = "subgroup"
    SUBGROUP_CRITERION = "subgroup_criterion"
    PAIR = "pair"
    RATER = "rater"


class RatingUnit:
    """What a row's judgments rated: whole outputs, or (projects rating per turn) single assistant turns."""

    CONVERSATION = "conversation"
    TURN = "turn"


class Status:
    OK = "ok"
    INSUFFICIENT_DATA = "insufficient_data"
