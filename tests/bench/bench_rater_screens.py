"""Screen-to-screen time in Chromium: from the rater's Enter on a fully answered screen to the next screen
ready for input (its questions wired and the first one focused), over 50 screens of a Likert project with
two outputs × two criteria. Raters in the same run, one per way the screens have worked: the full reload (the
form's own post, a redirect, a new page); in place (the answers posted in the background, the next screen sent
back in the same response and put in place); and now, with the next screen leased ahead (held in the page, swapped
in on Enter while the answers go out behind it). Each rater thinks THINK_S seconds on a screen before answering
it, as people do (the lease ahead has that long to arrive); a last rater leasing ahead answers with no pause, faster
than the server can lease, to show what is left then. Both times are taken in the page: the moment of the key
press to the moment rate.js marks the new screen up.

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


THINK_S = 1.0
# The answers' requests of this page so far, in the order sent.
SENT = """performance.getEntriesByType("resource")
    .filter(e => e.initiatorType === "fetch" && e.name.endsWith("/submit/"))"""


def _screens(page, reload: bool, think: float, waits: list[float]) -> list[float]:
    times = []
    for _ in range(SCREENS):
        page.wait_for_timeout(1000 * think)
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
        if not reload and think:  # the answers' request (the POST, the server's work, the bytes back)
            page.wait_for_function(f"{SENT}.length >= {len(times)}")
            waits.append(page.evaluate(f"(() => {{ const r = {SENT}.pop(); return r.responseEnd - r.startTime; }})()"))
    if not reload:  # the last answers, sent behind the last screen, are in before the run ends
        page.wait_for_function(f"{SENT}.length >= {SCREENS}")
    return times


def _summary(times: list[float]) -> str:
    q = statistics.quantiles(times, n=20)
    return f"p50 {statistics.median(times):6.1f} ms   p95 {q[18]:6.1f} ms   max {max(times):6.1f} ms"


def test_screen_to_screen_time(browser, live_server):
    project = rating_project(n_items=4 * SCREENS + 8, criteria=["fluency", "coherence"], systems=["s1", "s2"])
    runs = (
        ("full reload (before)", True, False, THINK_S),
        ("in place (before)", False, False, THINK_S),
        ("leased ahead (now)", False, True, THINK_S),
        ("leased ahead, no pause", False, True, 0.0),
    )
    results = {}
    for i, (name, reload, ahead, think) in enumerate(runs):
        (rater,) = add_raters(project, prefix=f"bench-{i}-")
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        context.add_init_script(WATCH_READY)
        if not ahead:  # the screens as they were: no screen is asked for ahead
            context.route("**/rate/ahead/", lambda route: route.fulfill(status=204))
        page = context.new_page()
        log_in(page, live_server.url, rater.username, PASSWORD, f"/projects/{project.pk}/instructions/")
        page.goto(f"{live_server.url}/projects/{project.pk}/rate/")
        wait_for_screen(page)
        waits = []
        results[name] = (_screens(page, reload, think, waits), waits)
        context.close()
    print(
        f"\nscreen-to-screen over {SCREENS} screens (Likert, 2 outputs x 2 criteria, Chromium, live server, "
        f"{THINK_S:g} s on each screen but where said):"
    )
    for name, (times, waits) in results.items():
        print(f"  {name:24s} {_summary(times)}")
        if waits:
            print(f"  {'  the answers request':24s} {_summary(waits)}")
