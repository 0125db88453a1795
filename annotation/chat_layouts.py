"""Items in the JSON layouts of the common chat datasets, read as Concord item lines and written back.

A line is in a chat layout when it has no ``input`` and holds the layout's keys (README, "Conversations"):

- ``messages``: a conversation ``[{role, content}]`` (the OpenAI chat layout; Hugging Face's "conversational"
  datasets, e.g. no_robots, UltraChat). Its last message, the assistant's, is the output (a candidate next turn of
  the system named by ``model``, else "assistant"); the messages before it are the input.
- ``conversations``: the same as ShareGPT writes it, ``[{from, value}]`` with ``human``/``gpt``/``system``.
- ``chosen`` and ``rejected`` (with an optional ``prompt``): TRL's preference layout (Anthropic HH-RLHF and
  UltraFeedback in their conversational versions). Without ``prompt`` the two conversations' common beginning is
  the input; the outputs "chosen" and "rejected" are what follows it in each (or follows ``prompt``, a string or
  a message list, when both repeat it, as UltraFeedback does).
- ``model_a``, ``model_b``, ``conversation_a``, ``conversation_b``: the Chatbot Arena and MT-Bench human judgment
  layout; the input is the conversations' common beginning, the outputs (systems model_a and model_b) the rest.

An output of one turn is a candidate next turn (plain text); of several, a whole conversation. Keys the layout does
not read go to ``meta``; the external id is ``id`` (or ``question_id``, ``prompt_id``, ``conversation_id``), else
a digest of the line's conversations, so that the same line imported twice is the same item.
"""

import hashlib
import json
from dataclasses import dataclass

from annotation.conversations import ConversationError, turns_json, turns_parse

ID_KEYS = ("id", "question_id", "prompt_id", "conversation_id")
SHAREGPT_ROLES = {"human": "user", "user": "user", "gpt": "assistant", "assistant": "assistant", "system": "system"}


@dataclass(frozen=True)
class Layout:
    name: str
    keys: tuple[str, ...]  # all of them mark a line of this layout


MESSAGES = Layout("messages", ("messages",))
SHAREGPT = Layout("sharegpt", ("conversations",))
PREFERENCE = Layout("preference", ("chosen", "rejected"))
ARENA = Layout("arena", ("model_a", "model_b", "conversation_a", "conversation_b"))
LAYOUTS = (ARENA, PREFERENCE, MESSAGES, SHAREGPT)
EXPORT_LAYOUTS = {layout.name: layout for layout in (MESSAGES, PREFERENCE, ARENA)}
# The fields of the layouts' lines that a refusal may name.
LAYOUT_FIELDS = frozenset({key for layout in LAYOUTS for key in layout.keys} | {"prompt", "model"})


def layout_of(record: dict) -> Layout | None:
    """The chat layout of an import line, or None for Concord's own line (it has ``input``)."""
    if "input" in record or "turns" in record:
        return None
    return next((layout for layout in LAYOUTS if all(key in record for key in layout.keys)), None)


def _turns(
    value, *, field: str, role_key: str = "role", text_key: str = "content", roles: dict[str, str] | None = None
) -> list[dict]:
    """A layout's message list as Concord turns; refusals name the line's own field (``messages[2].content``).
    A message's other keys (``name``, a dataset's annotations) are not read."""
    return turns_json(
        turns_parse(value, field=field, role_key=role_key, text_key=text_key, roles=roles, other_keys=True)
    )


def _split(first: list[dict], second: list[dict], *, fields: tuple[str, str]) -> tuple[list, list, list]:
    """The two conversations' common beginning, and what follows it in each (neither may be empty)."""
    common = 0
    while common < min(len(first), len(second)) and first[common] == second[common]:
        common += 1
    for rest, field in ((first[common:], fields[0]), (second[common:], fields[1])):
        if not rest:
            raise ConversationError(
                f"{field} has nothing after the conversation both sides share: there is nothing to compare"
            )
    if not common:
        raise ConversationError(f"{fields[0]} and {fields[1]} share no beginning: the input is the turns they share")
    return first[:common], first[common:], second[common:]


def _output(system: str, turns: list[dict]) -> dict:
    if len(turns) == 1:
        return {"system": system, "text": turns[0]["text"]}
    return {"system": system, "turns": turns}


def _external_id(record: dict, conversations: list) -> str:
    for key in ID_KEYS:
        value = record.get(key)
        if isinstance(value, str) and value.strip() or isinstance(value, int) and not isinstance(value, bool):
            return str(value)
    digest = hashlib.sha256(json.dumps(conversations, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
    return f"chat-{digest[:20]}"


def _meta(record: dict, read: set[str]) -> dict:
    meta = record.get("meta") if isinstance(record.get("meta"), dict) else {}
    return {**{k: v for k, v in record.items() if k not in read | {"meta", *ID_KEYS}}, **meta}


def chat_line_to_item(record: dict, layout: Layout) -> dict:
    """A chat layout's line as a Concord item line; raises ConversationError naming the line's field."""
    read = set(layout.keys) | {"subgroup", "gold", "references", "training"}
    if layout in (MESSAGES, SHAREGPT):
        key = layout.keys[0]
        turns = (
            _turns(record[key], field=key)
            if layout is MESSAGES
            else _turns(record[key], field=key, role_key="from", text_key="value", roles=SHAREGPT_ROLES)
        )
        if turns[-1]["role"] != "assistant" or len(turns) < 2:
            raise ConversationError(
                f"{key}: the last message is the output judged, so it must be the assistant's, "
                f"after at least one message before it"
            )
        system = record.get("model") or "assistant"
        if not isinstance(system, str):
            raise ConversationError(f"model must be a system name, got {type(system).__name__}")
        read.add("model")
        line = {"input": turns[:-1], "outputs": [_output(system, turns[-1:])]}
        conversations = [turns]
    elif layout is PREFERENCE:
        chosen, rejected = (_turns(record[k], field=k) for k in ("chosen", "rejected"))
        prompt = record.get("prompt")
        read.add("prompt")
        if prompt is None:
            shared, chosen, rejected = _split(chosen, rejected, fields=("chosen", "rejected"))
        else:
            shared = [{"role": "user", "text": prompt}] if isinstance(prompt, str) else _turns(prompt, field="prompt")
            # UltraFeedback repeats the prompt at the start of both conversations; TRL's layout does not.
            chosen, rejected = (c[len(shared) :] if c[: len(shared)] == shared else c for c in (chosen, rejected))
            if not chosen or not rejected:
                raise ConversationError("chosen and rejected must hold a reply after the prompt")
        line = {"input": shared, "outputs": [_output("chosen", chosen), _output("rejected", rejected)]}
        conversations = [shared, chosen, rejected]
    else:
        a, b = (_turns(record[k], field=k) for k in ("conversation_a", "conversation_b"))
        shared, a, b = _split(a, b, fields=("conversation_a", "conversation_b"))
        models = [record["model_a"], record["model_b"]]
        if not all(isinstance(m, str) and m.strip() for m in models):
            raise ConversationError("model_a and model_b must be the two systems' names")
        line = {"input": shared, "outputs": [_output(models[0], a), _output(models[1], b)]}
        conversations = [shared, a, b]
    line["external_id"] = _external_id(record, conversations)
    line["meta"] = _meta(record, read)
    return line | {k: record[k] for k in ("subgroup", "gold", "references", "training") if k in record}


def _messages(turns: list[dict]) -> list[dict]:
    return [{"role": t["role"], "content": t["text"]} for t in turns]


def item_to_chat_lines(item: dict, layout: Layout) -> list[dict]:
    """An exported item (``external_id``, ``input``, ``turns``, ``outputs`` with ``system``, ``text`` and
    ``turns``, ``meta``) as lines of a chat layout: ``messages``, a line per output (its id the item's, suffixed
    ``/system`` when there are several); ``preference``, items whose outputs are the systems "chosen" and
    "rejected"; ``arena``, items of two outputs. [] when the item does not fit the layout; the meta's keys are
    written beside the layout's (which win), as the import reads them back."""
    context = item["turns"] or [{"role": "user", "text": item["input"]}]

    def rest(output: dict) -> list[dict]:
        return output.get("turns") or [{"role": "assistant", "text": output["text"]}]

    outputs, meta, external_id = item["outputs"], item.get("meta") or {}, item["external_id"]
    if layout is MESSAGES:
        return [
            meta
            | {
                "id": external_id if len(outputs) == 1 else f"{external_id}/{o['system']}",
                "model": o["system"],
                "messages": _messages(context + rest(o)),
            }
            for o in outputs
        ]
    if len(outputs) != 2:
        return []
    if layout is PREFERENCE:
        by_system = {o["system"]: o for o in outputs}
        if set(by_system) != {"chosen", "rejected"}:
            return []
        return [
            meta
            | {
                "id": external_id,
                "prompt": _messages(context),
                "chosen": _messages(rest(by_system["chosen"])),
                "rejected": _messages(rest(by_system["rejected"])),
            }
        ]
    first, second = outputs
    return [
        meta
        | {
            "id": external_id,
            "model_a": first["system"],
            "model_b": second["system"],
            "conversation_a": _messages(context + rest(first)),
            "conversation_b": _messages(context + rest(second)),
        }
    ]
