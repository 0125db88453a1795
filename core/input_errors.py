"""Errors a service raises to refuse an input as a whole; ``core.api_errors`` answers them with a 400.

Apart from api_errors, which imports DRF: the services that raise these load before DRF's settings do.
"""


class InputRejected(Exception):
    """An input refused as a whole, nothing written; ``as_dict()`` is the 400 body naming every problem."""

    def as_dict(self) -> dict:
        raise NotImplementedError
