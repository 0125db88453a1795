"""Every form on every page (issue 15): each page the site serves is opened as the lead and as the rater,
its forms are read from the HTML, and hypothesis posts hostile values (NUL, invalid UTF-8, NaN, Infinity,
huge numbers, naive times, long text) into each of their fields. No answer may be a 5xx."""

from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urlencode, urljoin, urlsplit

import pytest
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from annotation.models import Project
from tests.security.world import build_world, url_patterns

# No shrinking: a failing example is reported as found.
FORM_FUZZ = settings(
    max_examples=8,
    deadline=None,
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)
# As bytes: a form post carries bytes, and b"\xed\xa0\x80" is a lone surrogate encoded as if it were UTF-8.
HOSTILE = [
    b"a\x00b",
    b"\x00",
    b"\xed\xa0\x80",
    b"\xff\xfe",
    b"NaN",
    b"Infinity",
    b"-Infinity",
    b"1e20",
    b"99999999999999999999",
    b"-1",
    b"2024-01-01T00:00:00",
    b"",
    b" ",
    b"x" * 10_000,
    b"0",
]
HOSTILE_FILES = [
    b"a\x00b\n",
    b'{"external_id": "x", "input": NaN, "outputs": []}\n',
    b"username\nann\x00\n",
    b"\xff\xfe\x00",
    b'{"external_id": "x", "input": "i", "meta": {"a": Infinity}, "outputs": []}\n',
]
# Pages that take no form of ours, or whose forms end the session.
SKIPPED_ACTIONS = ("/accounts/logout/",)


@dataclass
class Form:
    action: str
    method: str
    multipart: bool
    fields: dict[str, list[str]] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)

    def key(self):
        return self.method, urlsplit(self.action).path, tuple(sorted(self.fields)), tuple(self.files)


class _FormReader(HTMLParser):
    def __init__(self, url: str):
        super().__init__()
        self.url, self.forms, self.form, self.select = url, [], None, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.form = Form(
                action=urljoin(self.url, attrs.get("action") or self.url),
                method=(attrs.get("method") or "get").lower(),
                multipart="multipart" in (attrs.get("enctype") or ""),
            )
            self.forms.append(self.form)
        elif self.form is not None and attrs.get("name"):
            name = attrs["name"]
            if tag == "input" and attrs.get("type") == "file":
                self.form.files.append(name)
            elif tag in ("input", "textarea", "button"):
                self.form.fields.setdefault(name, []).append(attrs.get("value") or "")
            elif tag == "select":
                self.select = self.form.fields.setdefault(name, [])
        elif tag == "option" and self.select is not None:
            self.select.append(attrs.get("value") or "")

    def handle_endtag(self, tag):
        if tag == "form":
            self.form = None
        elif tag == "select":
            self.select = None


def _pages(world) -> list[str]:
    ids = {
        "pk": world.project.pk,
        "item_pk": world.ids["pk_item"],
        "invite_id": world.ids["invite_id"],
        "token": world.ids["external_token"],
        "rater_id": world.users["rater"].pk,
    }
    pages = []
    for route, _ in url_patterns():
        if route.startswith(("api/", "admin/")):
            continue
        path = "/" + route
        for name, value in ids.items():
            path = path.replace(f"<int:{name}>", str(value)).replace(f"<str:{name}>", str(value))
        if "<" not in path:
            pages.append(path)
    return pages


def _forms(client: Client, pages: list[str], seen: set) -> list[Form]:
    forms = []
    for path in pages:
        response = client.get(path, follow=True)
        if response.status_code != 200 or "html" not in response.get("Content-Type", ""):
            continue
        url = "http://testserver" + response.request["PATH_INFO"]
        reader = _FormReader(url)
        reader.feed(response.content.decode())
        for form in reader.forms:
            if form.key() not in seen and not urlsplit(form.action).path.startswith(SKIPPED_ACTIONS):
                seen.add(form.key())
                forms.append(form)
    return forms


def _values(form: Form):
    """Per field: one of the values the page offers, a hostile value, or the field left out."""
    fields = {name: st.sampled_from([v.encode() for v in offered] + HOSTILE) for name, offered in form.fields.items()}
    files = {name: st.sampled_from(HOSTILE_FILES) for name in form.files}
    return st.fixed_dictionaries({}, optional=fields), st.fixed_dictionaries({}, optional=files)


def _send(client: Client, form: Form, values: dict, files: dict):
    path = urlsplit(form.action).path
    if form.method == "get":
        return client.get(f"{path}?{urlencode(values)}")
    if form.multipart:
        data = {name: value.decode("utf-8", "replace") for name, value in values.items()}
        data |= {name: SimpleUploadedFile("upload.csv", body) for name, body in files.items()}
        return client.post(path, data)
    return client.post(path, urlencode(values), content_type="application/x-www-form-urlencoded")


def _post_hostile_values(client: Client, form: Form) -> None:
    fields, files = _values(form)

    @FORM_FUZZ
    @given(values=fields, uploads=files)
    def post(values, uploads):
        response = _send(client, form, values, uploads)
        assert response.status_code < 500, (form.action, values, response.status_code)

    post()


@pytest.mark.django_db
def test_no_form_on_any_page_answers_a_5xx_to_hostile_values():
    world = build_world()
    world.users["lead"].user_permissions.add(Permission.objects.get(codename="add_project"))  # the clone page
    pages, seen, checked = _pages(world), set(), []
    for role in ("lead", "rater"):
        client = Client()
        client.force_login(world.users[role])
        for form in _forms(client, pages, seen):
            _post_hostile_values(client, form)
            checked.append(urlsplit(form.action).path)
            # The archive form makes the project read-only: every later form would only meet that refusal.
            Project.objects.filter(pk=world.project.pk).update(archived_at=None)
    # The attack's forms are among those read from the pages.
    pk = world.project.pk
    for path in (
        f"/projects/{pk}/clone/",
        f"/projects/{pk}/raters/action/",
        f"/projects/{pk}/qc/rules/",
        f"/projects/{pk}/qc/controls/",
        f"/projects/{pk}/accounts/",
        f"/projects/{pk}/items/upload/",
        f"/assignments/{world.assignment.pk}/submit/",
        f"/assignments/{world.assignment.pk}/flag/",
        f"/projects/{pk}/items/",
    ):
        assert path in checked, (path, sorted(set(checked)))
