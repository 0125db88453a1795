"""The browser fixtures of tests/annotation/browser (Debian Chromium through Playwright)."""
from tests.annotation.browser.conftest import browser, page, screenshot  # noqa: F401
