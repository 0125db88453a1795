"""An audit entry's detail as readable (label, text) rows: changes as "before → after", lists joined."""

from django import template

register = template.Library()


def _text(value) -> str:
    if value is None or value == "":
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return ", ".join(f"{key.replace('_', ' ')} {_text(v)}" for key, v in value.items()) or "—"
    if isinstance(value, list | tuple):
        return ("; " if any(isinstance(v, dict) for v in value) else ", ").join(map(_text, value)) or "none"
    return str(value)


@register.filter
def audit_detail(detail) -> list[tuple[str, str]]:
    rows = []
    for key, value in (detail or {}).items():
        if key == "changed" and isinstance(value, dict):
            rows += [
                (name.replace("_", " "), f"{_text(change[0])} → {_text(change[1])}")
                if isinstance(change, list) and len(change) == 2
                else (name, _text(change))
                for name, change in value.items()
            ]
        else:
            rows.append((key.replace("_", " "), _text(value)))
    return rows
