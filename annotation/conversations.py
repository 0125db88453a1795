"""Conversations: an item's input, or an output, given as a list of turns ``{role, text}``.

A conversation is stored twice: its turns (a JSON list beside the text) for the screens and exports that show
roles, and a plain text rendering in the usual text field, so that every reader of plain text (metrics, error
spans, adjudication, judges, search) keeps working unchanged."""

from dataclasses import dataclass

ROLES = ("system", "user", "assistant")
# The turn separator of the plain-text rendering: a blank line, then "role: text".
SEPARATOR = "\n\n"


class ConversationError(ValueError):
    """Turns that are not a conversation; the message names the field (``input[2].role``)."""


@dataclass(frozen=True)
class Turn:
    role: str
    text: str

    def as_json(self) -> dict:
        return {"role": self.role, "text": self.text}


def turns_parse(
    value,
    *,
    field: str,
    role_key: str = "role",
    text_key: str = "text",
    roles: dict[str, str] | None = None,
    other_keys: bool = False,
) -> tuple[Turn, ...]:
    """The turns of ``value``, a list of ``{role, text}`` objects (or, for a chat dataset's layout, of objects with
    its ``role_key`` and ``text_key``, its ``roles`` mapped to ours, and ``other_keys`` ignored); raises
    ConversationError naming the field and turn (counted from 1) for an empty list, an unknown role, empty text or
    a wrong type."""
    roles = roles or {role: role for role in ROLES}
    shape = f"{{{role_key}, {text_key}}}"
    if not isinstance(value, list):
        raise ConversationError(f"{field} must be a list of {shape} turns, got {type(value).__name__}")
    if not value:
        raise ConversationError(f"{field} is an empty conversation; give at least one {shape} turn")
    turns = []
    for k, turn in enumerate(value, start=1):
        where = f"{field}[{k}]"
        if not isinstance(turn, dict):
            raise ConversationError(f"{where} must be an object {shape}, got {type(turn).__name__}")
        extra = sorted(set(turn) - {role_key, text_key})
        if extra and not other_keys:
            raise ConversationError(f"{where} has unknown key {', '.join(map(repr, extra))}; a turn is {shape}")
        role, text = turn.get(role_key), turn.get(text_key)
        if not isinstance(role, str):
            raise ConversationError(f"{where}.{role_key} must be one of {', '.join(roles)}, got {type(role).__name__}")
        if role not in roles:
            raise ConversationError(f"{where}.{role_key} {role!r} is not a role; roles are {', '.join(roles)}")
        if not isinstance(text, str):
            raise ConversationError(f"{where}.{text_key} must be a string (text only), got {type(text).__name__}")
        if not text.strip():
            raise ConversationError(f"{where}.{text_key} is empty")
        if "\x00" in text:
            raise ConversationError(f"{where}.{text_key} holds a NUL character (U+0000), which text may not contain")
        turns.append(Turn(roles[role], text))
    return tuple(turns)


def turns_text(turns: tuple[Turn, ...]) -> str:
    """The plain-text rendering stored in the text field: ``role: text`` per turn, separated by a blank line."""
    return SEPARATOR.join(f"{t.role}: {t.text}" for t in turns)


def turns_json(turns: tuple[Turn, ...]) -> list[dict]:
    return [t.as_json() for t in turns]


def turns_from_json(value: list[dict] | None) -> tuple[Turn, ...]:
    """Stored turns (trusted: they were checked on import) back as Turn values."""
    return tuple(Turn(t["role"], t["text"]) for t in value or ())


def assistant_turns(turns: list[dict] | None) -> list[int]:
    """The indexes (from 0) of a stored conversation's assistant turns: the turns a per-turn project rates, and the
    ``turn`` its judgments carry."""
    return [k for k, turn in enumerate(turns or ()) if turn["role"] == "assistant"]


def turn_label(index: int, ordinal: int | None) -> str:
    """A rated turn as people are shown it: "assistant turn 2 (message 3)", its place among the output's assistant
    turns and among all of the output's messages, both counted from 1 (``index`` is the stored id, from 0; without
    ``ordinal``, e.g. where outputs differ in it, only the message)."""
    message = f"message {index + 1}"
    return message if ordinal is None else f"assistant turn {ordinal} ({message})"


def turn_labels(turns: list[dict] | None) -> dict[int, str]:
    """Each assistant turn's label (turn_label) by its index."""
    return {index: turn_label(index, k) for k, index in enumerate(assistant_turns(turns), start=1)}
