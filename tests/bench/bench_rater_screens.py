"""Screen-to-screen time in Chromium: from the rater's Enter on a fully answered screen to the next screen
ready for input (its questions wired and the first one focused), over 50 screens of a Likert project with
two outputs × two criteria. Two raters in the same run: one as the screens work now (the answers posted in
the background, the next screen sent back in the same response and put in place), one with the full reload
the screens used before (the form's own post, a redirect, a new page). Both times are taken in the page:
the moment of the key press to the moment rate.js marks the new screen up.

    .venv/bin/python -m pytest tests/bench/bench_rater_screens.py -s -p no:randomly   # PostgreSQL on loopback
"""

import statistics

import pytest

from tests.annotation.browser.test_rater_keyboard import PASSWORD, wait_for_screen
from tests.annotation.rating import add_raters, rating_project
from tests.browser_support import log_in

pytestmark = [pytest.mark.bench, pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENS = 50
# On every new document: the moment the screen marker changes (rate.js sets it last, once the screen is
# ready), and the moment of an Enter key press (the event's own time stamp, before any handler runs).
WATCH_READY = """new MutationObserver(() => { window.__readyAt = performance.timeOrigin + performance.now(); })
    .observe(document, { attributes: true, subtree: true, attributeFilter: ["data-screen"] });
window.addEventListener("keydown", (e) => { if (e.key === "Enter") sessionStorage.t0 = String(
    performance.timeOrigin + e.timeStamp); }, true);"""
MARK_START = "sessionStorage.t0 = String(performance.timeOrigin + performance.now()); window.__readyAt = 0;"


def _screens(page, reload: bool, waits: list[float]) -> list[float]:
    times = []
    for _ in range(SCREENS):
        for key in "4354":
            page.keyboard.press(key)
        shown = page.get_attribute("html", "data-screen")
        if reload:  # the old way: the form's own post, then the redirect to the next screen
            page.evaluate(MARK_START + "HTMLFormElement.prototype.submit.call(document.getElementById('rate-form'))")
        else:
            page.evaluate("window.__readyAt = 0")
            page.keyboard.press("Enter")
        page.wait_for_function(
            "(shown) => window.__readyAt && document.documentElement.dataset.screen !== shown", arg=shown
        )
        times.append(page.evaluate("window.__readyAt - Number(sessionStorage.t0)"))
        if not reload:  # of which waiting for the response (the POST, the server's work, the bytes back)
            waits.append(
                page.evaluate("""() => { const r = performance.getEntriesByType("resource")
                .filter(e => e.initiatorType === "fetch").pop(); return r.responseEnd - r.startTime; }""")
            )
    return times


def _summary(times: list[float]) -> str:
    q = statistics.quantiles(times, n=20)
    return f"p50 {statistics.median(times):6.1f} ms   p95 {q[18]:6.1f} ms   max {max(times):6.1f} ms"


def test_screen_to_screen_time(browser, live_server):
    project = rating_project(n_items=2 * SCREENS + 2, criteria=["fluency", "coherence"], systems=["s1", "s2"])
    results, waits = {}, []
    for name, reload in (("full reload (before)", True), ("in place (now)", False)):
        (rater,) = add_raters(project, prefix=f"bench-{int(reload)}-")
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        context.add_init_script(WATCH_READY)
        page = context.new_page()
        log_in(page, live_server.url, rater.username, PASSWORD, f"/projects/{project.pk}/instructions/")
        page.goto(f"{live_server.url}/projects/{project.pk}/rate/")
        wait_for_screen(page)
        results[name] = _screens(page, reload, waits)
        context.close()
    print(f"\nscreen-to-screen over {SCREENS} screens (Likert, 2 outputs x 2 criteria, Chromium, live server):")
    for name, times in results.items():
        print(f"  {name:22s} {_summary(times)}")
    print(f"  {'of which the response':22s} {_summary(waits)}")
