"""Shared pytest set-up: property-based tests are reproducible in CI, and the tests of
Ctrl-C see SIGINT raise as a terminal's Python does."""

import os
import signal
from collections.abc import Iterator

import pytest
from hypothesis import settings

# In CI (CI=true) every run draws the same examples, so a red build is reproducible.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture
def ctrl_c_raises() -> Iterator[None]:
    """SIGINT raises ``KeyboardInterrupt`` during the test, as in a terminal.

    A job started in the background without job control inherits SIGINT ignored; Python
    then leaves it ignored, so a real Ctrl-C and ``_thread.interrupt_main()`` do nothing
    and a test that waits for one would wait for ever.
    """
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
