"""Playwright driving Debian's Chromium against pytest-django's live server; screenshots go to artifacts/.

A pytest plugin (registered in tests/conftest.py) so every browser test shares one Playwright.
"""

import os
import shutil
from pathlib import Path

import pytest

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def browser():
    if not shutil.which(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread for as long as the browser lives; the
    # ORM calls tests make between page actions are still synchronous and safe.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    in_flight: set = set()
    page.on("request", lambda request: in_flight.add(request))
    page.on("requestfinished", lambda request: in_flight.discard(request))
    page.on("requestfailed", lambda request: in_flight.discard(request))
    yield page
    # A request still in flight (the rater page's lease-ahead, say) holds a live-server transaction; the
    # database flush after the test would deadlock against it, so the page is left to settle first (5 s at most).
    for _ in range(200):
        if not in_flight:
            break
        page.wait_for_timeout(25)
    context.close()


@pytest.fixture
def screenshot():
    ARTIFACTS.mkdir(exist_ok=True)

    def take(page, name: str):
        page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)

    return take


def log_in(page, base_url: str, username: str, password: str, next_path: str):
    """Log in through the login form (set-up, not under test: filled directly, not typed)."""
    page.goto(f"{base_url}/accounts/login/?next={next_path}")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    with page.expect_navigation():
        page.press("#id_password", "Enter")


def inked_pixels(page, canvas_id: str) -> int:
    """How many pixels of a chart's canvas are drawn on (not fully transparent)."""
    return page.evaluate(
        """(id) => {
        const c = document.getElementById(id);
        const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i] > 0) n++;
        return n;
    }""",
        canvas_id,
    )


# The widths every page is checked at: a laptop, a tablet held upright, a phone.
VIEWPORTS = {
    "desktop": {"width": 1280, "height": 800},
    "tablet": {"width": 768, "height": 1024},
    "phone": {"width": 390, "height": 844},
}


def page_overflow(page) -> int:
    """How many CSS pixels the whole page scrolls sideways (0: it fits; wide tables scroll in their region)."""
    return page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")


def at_every_width(page, screenshot, name: str, check=None) -> None:
    """Screenshots ``name-desktop``, ``-tablet`` and ``-phone`` of the page, each checked to fit its width, and
    back to the desktop size. ``check(page)``, when given, runs at each width and returns what is wrong there
    (e.g. axe-core's ``problems``): nothing, or a falsy value, passes."""
    for width_name, viewport in VIEWPORTS.items():
        page.set_viewport_size(viewport)
        assert page_overflow(page) <= 0, f"{name} scrolls sideways at {viewport['width']}px"
        if check is not None:
            found = check(page)
            assert not found, f"{name} at {viewport['width']}px: {found}"
        screenshot(page, f"{name}-{width_name}")
    page.set_viewport_size(VIEWPORTS["desktop"])


def drag_select(page, side, start, end, direction="ltr"):
    """Drags the mouse over code points [start, end) of an error-span widget's text (``side`` "output" or
    "source"), from the first one's leading edge to the last one's trailing edge (left to right, or right to left
    in a right-to-left text)."""
    box = page.evaluate(
        """([side, start, end]) => {
            const root = document.querySelector('[data-text=' + side + ']');
            const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
            const units = [];  // [text node, UTF-16 offset] of every code point
            for (let n = walker.nextNode(); n; n = walker.nextNode()) {
                let k = 0;
                for (const ch of n.data) { units.push([n, k]); k += ch.length; }
            }
            const rect = (i) => {
                const [n, k] = units[i];
                const r = document.createRange();
                r.setStart(n, k);
                r.setEnd(n, k + String.fromCodePoint(n.data.codePointAt(k)).length);
                return r.getBoundingClientRect();
            };
            const a = rect(start), b = rect(end - 1);
            return {a: [a.left, a.right, a.top + a.height / 2], b: [b.left, b.right, b.top + b.height / 2]};
        }""",
        [side, start, end],
    )
    (al, ar, ay), (bl, br, by) = box["a"], box["b"]
    x0, x1 = (al + 1, br - 1) if direction == "ltr" else (ar - 1, bl + 1)
    page.mouse.move(x0, ay)
    page.mouse.down()
    page.mouse.move(x1, by, steps=8)
    page.mouse.up()
