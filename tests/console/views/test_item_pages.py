"""The item browser and an item's detail page: what leads see, who is turned away, and query budgets."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.annotation.factories import ItemFactory, ProjectFactory
from tests.console.fixtures import known_project

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    return known_project()


def test_the_browser_filters_from_the_query_string(client, world):
    client.force_login(world.lead)
    response = client.get(f"/projects/{world.project.pk}/items/", {"status": "untouched", "subgroup": "news"})
    html = response.content.decode()
    assert response.status_code == 200
    assert [item.external_id for item in response.context["page"]] == ["i7", "i9"]
    assert '<option value="news" selected>' in html and '<option value="untouched" selected>' in html
    assert f'href="/projects/{world.project.pk}/items/id/i7/"' in html
    assert '<dd data-status="untouched">2</dd>' in html and '<dd data-status="in_progress">1</dd>' in html


def test_pages_keep_the_filters(client, world):
    for k in range(60):
        ItemFactory(project=world.project, external_id=f"extra{k}", subgroup="news")
    client.force_login(world.lead)
    response = client.get(f"/projects/{world.project.pk}/items/", {"subgroup": "news", "q": "extra"})
    assert response.context["page"].paginator.count == 60
    assert 'href="?subgroup=news&amp;q=extra&amp;page=2" rel="next"' in response.content.decode()
    second = client.get(f"/projects/{world.project.pk}/items/", {"subgroup": "news", "q": "extra", "page": 2})
    assert len(second.context["page"]) == 10


def test_the_detail_page_shows_judgments_systems_and_gold_to_leads(client, world):
    client.force_login(world.lead)
    html = client.get(f"/projects/{world.project.pk}/items/id/i0/").content.decode()
    assert '<span data-testid="system">bart</span>' in html and "input i0" not in html  # factory input text
    assert "input of i0" in html
    assert html.count("<td>known-r2</td>") == 2 and "Revised" in html and "Current" in html
    assert "<td>40 s</td>" in html  # r2's first answer took 40 s
    gold = client.get(f"/projects/{world.project.pk}/items/id/g0/").content.decode()
    assert "Gold answer" in gold and "<td>fluency</td>" in gold and "<td>4</td>" in gold
    assert "{" not in gold.split("Gold answer")[1].split("</table>")[0]  # a table, not a Python dict


def test_raters_get_403_and_outsiders_404(client, world, django_user_model):
    paths = [f"/projects/{world.project.pk}/items/", f"/projects/{world.project.pk}/items/{world.items['i0'].pk}/"]
    client.force_login(world.raters["r1"])
    assert [client.get(path).status_code for path in paths] == [403, 403]
    client.force_login(django_user_model.objects.create_user("outsider", password="x-pass-12345"))
    assert [client.get(path).status_code for path in paths] == [404, 404]


def test_an_item_of_another_project_is_404(client, world):
    other = ItemFactory(project=ProjectFactory(), external_id="elsewhere")
    client.force_login(world.lead)
    assert client.get(f"/projects/{world.project.pk}/items/{other.pk}/").status_code == 404
    assert client.get(f"/projects/{world.project.pk}/items/id/elsewhere/").status_code == 404


def test_the_old_address_by_id_leads_to_the_address_by_external_id(client, world):
    item = ItemFactory(project=world.project, external_id="news/2024 #7")
    client.force_login(world.lead)
    response = client.get(f"/projects/{world.project.pk}/items/{item.pk}/")
    assert response.status_code == 302 and response["Location"] == (
        f"/projects/{world.project.pk}/items/id/news/2024%20%237/"
    )
    page = client.get(response["Location"])
    assert page.status_code == 200 and page.context["item"].pk == item.pk


def _queries(client, path) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(path).status_code == 200
    return len(queries)


def test_page_queries_do_not_grow_with_items_or_judgments(client):
    small, large = known_project(), known_project(extra_untouched=400)
    client.force_login(small.lead)
    browser_small = _queries(client, f"/projects/{small.project.pk}/items/")
    detail_small = _queries(client, f"/projects/{small.project.pk}/items/id/i0/")
    client.force_login(large.lead)
    assert _queries(client, f"/projects/{large.project.pk}/items/") == browser_small
    assert _queries(client, f"/projects/{large.project.pk}/items/id/i3/") == detail_small
    assert browser_small <= 13 and detail_small <= 12
