"""The snapshot_value tag writes what the template it replaced wrote (kept here as the reference), for values
with intervals or without, unreliable scopes, rounding ties, negative zero and reasons needing escaping."""

import numpy as np
from django.template import Context, Template

from agreement.templatetags.agreement_format import snapshot_value

REFERENCE = Template(
    '{% if s and s.value is not None %}<span class="{% if s.unreliable %}unreliable{% endif %}" title="n = '
    '{{ s.n_units }} units{% if s.unreliable %}; fewer than 30 units: unreliable{% endif %}">'
    '{{ s.value|floatformat:3 }}</span>{% if s.ci_low is not None %} <small class="muted" title="95% interval '
    '({{ s.ci_method|default:"bootstrap" }})">[{{ s.ci_low|floatformat:2 }}, {{ s.ci_high|floatformat:2 }}]'
    '</small>{% endif %} <small class="muted">n={{ s.n_units }}</small>{% elif s %}<span class="muted" '
    'title="{{ s.reason }}">insufficient data</span>{% endif %}'
)


def row(value, ci=None, n=40, method="bca", reason=""):
    return {
        "value": value,
        "ci_low": None if ci is None else ci[0],
        "ci_high": None if ci is None else ci[1],
        "ci_method": method,
        "n_units": n,
        "unreliable": n < 30,
        "reason": reason,
    }


def test_the_tag_writes_what_the_template_wrote():
    rng = np.random.default_rng(0)
    rows = [
        None,
        {},
        row(None, reason='a single label in use (<"none">)'),
        row(-0.0001),
        row(0.1235, (0.0015, 1.0)),
        row(0.5, (0.125, 0.875), n=12, method=""),
        row(-1.0, (-1.0, -0.995), n=0),
    ]
    for value in np.round(rng.uniform(-1, 1, 300), 4):
        low, high = sorted(np.round(rng.uniform(-1, 1, 2), 3))
        rows.append(row(float(value), (float(low), float(high)), n=int(rng.integers(0, 100))))
    for s in rows:
        assert str(snapshot_value(s)) == REFERENCE.render(Context({"s": s})), s
