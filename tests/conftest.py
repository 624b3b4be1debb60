"""Hypothesis in CI draws the same examples on every run (`derandomize`): a law that a random
draw breaks is found on a developer's machine or by `make fuzz`, and reproduced there, rather
than failing one CI run of a change that did not cause it. Locally the draws stay random.
The integrations venv (`make integrations`) has no hypothesis: there the profile is not needed."""

from __future__ import annotations

import os

try:
    from hypothesis import settings
except ImportError:  # the integrations venv: none of its tests draws examples
    pass
else:
    settings.register_profile("ci", derandomize=True, print_blob=True)
    if os.environ.get("CI"):
        settings.load_profile("ci")
