"""Hypothesis in CI draws the same examples on every run (`derandomize`): a law that a random
draw breaks is found on a developer's machine or by `make fuzz`, and reproduced there, rather
than failing one CI run of a change that did not cause it. Locally the draws stay random."""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")
