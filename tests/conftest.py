"""Shared pytest set-up: property-based tests are reproducible in CI."""

import os

from hypothesis import settings

# In CI (CI=true) every run draws the same examples, so a red build is reproducible.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")
