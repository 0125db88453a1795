"""The one place where text and values from outside (import lines, form fields, query parameters, URL
paths, JSON documents) are checked before they reach the database, and where a refusal names the field.

What is refused, and why (PostgreSQL or the platform cannot hold it, or it means nothing):
- a NUL character (U+0000): PostgreSQL text and jsonb cannot store it;
- a lone surrogate (U+D800-U+DFFF): not a Unicode character, so not encodable as UTF-8;
- NaN, Infinity (also ``1e400``, which reads as Infinity): JSON has no such numbers and no statistic can use them;
- integers beyond a 64-bit signed integer, and numbers with more digits than Python reads (4,300).
Date-times without a UTC offset are read as UTC (``read_datetime``), the server's time zone.
"""

import datetime
import math
import re

from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.dateparse import parse_datetime

# The widest integer any column here holds (a PostgreSQL bigint); JSON readers in other languages stop sooner.
MAX_INTEGER = 2**63 - 1
_SURROGATE = re.compile("[\ud800-\udfff]")
_PLAIN_KEY = re.compile(r"[A-Za-z_][\w-]{0,39}")


class OutsideValueError(ValueError):
    """A value from outside that Concord refuses; ``field`` names where it was (``meta.lang``,
    ``outputs[2].text``, a query parameter), ``problem`` says what is wrong with it."""

    def __init__(self, field: str, problem: str):
        self.field, self.problem = field, problem
        super().__init__(f"{field} {problem}" if field else problem)


def text_problem(text: str) -> str | None:
    """What is wrong with ``text`` (``holds a NUL character …``), or None when it may be stored."""
    if "\x00" in text:
        return "holds a NUL character (U+0000), which text may not contain"
    surrogate = _SURROGATE.search(text)
    if surrogate:
        return (
            f"holds a lone surrogate (U+{ord(surrogate.group()):04X}), which is not a Unicode character; "
            "send text as UTF-8"
        )
    return None


def check_text(text: str, *, field: str) -> str:
    """``text`` itself; raises OutsideValueError naming ``field``."""
    problem = text_problem(text)
    if problem:
        raise OutsideValueError(field, problem)
    return text


def number_problem(value: int | float) -> str | None:
    if isinstance(value, float) and not math.isfinite(value):
        return f"is {value!r}; numbers must be finite (NaN and Infinity are not JSON numbers)"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INTEGER:
        return f"is too large a number (at most {MAX_INTEGER} in size)"
    return None


def _child(field: str, key) -> str:
    if isinstance(key, int):
        return f"{field}[{key + 1}]"
    if _PLAIN_KEY.fullmatch(key):
        return f"{field}.{key}" if field else key
    return f"{field}[{key[:40]!r}]"


def check_json(value, *, field: str = ""):
    """``value`` (a decoded JSON document) itself, after checking every key, string and number in it;
    raises OutsideValueError naming the first bad place (``meta.scores[2]``)."""
    # An explicit stack, not recursion: a deeply nested document must not exhaust the interpreter's stack.
    stack = [(field, value)]
    while stack:
        where, node = stack.pop()
        if isinstance(node, str):
            check_text(node, field=where)
        elif isinstance(node, bool) or node is None:
            continue
        elif isinstance(node, int | float):
            problem = number_problem(node)
            if problem:
                raise OutsideValueError(where, problem)
        elif isinstance(node, dict):
            for key in node:
                key_problem = text_problem(str(key))
                if key_problem:
                    raise (
                        OutsideValueError(where, f"has a key that {key_problem}")
                        if where
                        else OutsideValueError("a field name", key_problem)
                    )
            stack.extend(reversed([(_child(where, str(key)), child) for key, child in node.items()]))
        elif isinstance(node, list | tuple):
            stack.extend(reversed([(_child(where, i), child) for i, child in enumerate(node)]))
    return value


def validate_outside_json(value) -> None:
    """check_json as a validator for Django form and DRF fields: a ValidationError naming the place."""
    try:
        check_json(value)
    except OutsideValueError as exc:
        raise ValidationError(str(exc) if exc.field else exc.problem, code="outside_value") from exc


def read_datetime(value, *, field: str) -> datetime.datetime:
    """An ISO 8601 date-time as an aware datetime; one without a UTC offset is read as UTC."""
    if isinstance(value, str):
        check_text(value, field=field)
    try:
        moment = parse_datetime(value) if isinstance(value, str) else None
    except ValueError:  # well formed, but no such moment (2024-02-30)
        moment = None
    if moment is None:
        raise OutsideValueError(field, f"must be an ISO 8601 date-time such as 2024-03-01T10:00:00Z, got {value!r}")
    return moment if timezone.is_aware(moment) else timezone.make_aware(moment, datetime.UTC)
