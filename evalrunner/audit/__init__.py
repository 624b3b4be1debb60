"""`evalrun audit`: check the instrument against a person's reading, with an error bar.

Sample runs from each stratum of the exact-match verdict into a sheet a reviewer labels
(`sample`), then compare the labels with evalrun's verdicts on the same runs (`score`). The jobs
are split by module: the draw (`sampling`), the traces read once (`population`), the inputs'
digest (`digest`), what a reviewer needs (`review`), the sheet (`sheet`), the statistics
(`stats`) and the comparison (`compare`); the reviewer's page and the table are drawn in
`write/` (`audit_page`, `audit_table`).
"""

from .commands import sample, score
from .compare import Audit, Disagreement
from .digest import Changes, Digest
from .population import Inputs
from .sheet import Entry, Header, Sheet, SheetError, read_sheet
from .stats import Estimate, Stratum, cohen_kappa, stratified_rate, wilson

__all__ = [
    "Audit",
    "Changes",
    "Digest",
    "Disagreement",
    "Entry",
    "Estimate",
    "Header",
    "Inputs",
    "Sheet",
    "SheetError",
    "Stratum",
    "cohen_kappa",
    "read_sheet",
    "sample",
    "score",
    "stratified_rate",
    "wilson",
]
