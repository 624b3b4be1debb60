"""Types of evalrun's native core (native/src/lib.rs); `evalrunner.core` says when it is used."""

from typing import Any, Final

CORE_VERSION: Final[int]
REJECTED: Final[str]

def canon_key(v: Any) -> Any:
    """`evalrunner.jsonvalue.py_canon_key`, natively: equal keys of the same types."""

def json_eq(a: Any, b: Any) -> bool:
    """`evalrunner.jsonvalue.py_json_eq`, natively."""

def scan_json(data: bytes) -> tuple[bool, int]:
    """`evalrunner.jsonvalue.py_scan_json`, natively."""

class Node:
    """`evalrunner.grade.compare.Node` as normalizing reads it (`compare.native_node`)."""

    def __init__(
        self,
        active: bool,
        props: dict[str, Node] | None,
        items: Node | None,
        default_norm: Any,
        has_default: bool,
        rule: str,
        rule_arg: Any,
        validity: Any,
        types: list[str],
        constant: Any,
        has_constant: bool,
        choices: list[Any] | None,
        strings_in_python: bool,
    ) -> None: ...
    def normalize(self, value: Any, checked: bool = False) -> Any:
        """`compare.py_normalize(value, node, checked)`."""
    def key(self, value: Any, checked: bool = True) -> Any:
        """`ToolPlan.key`: `canon_key` of the normal form."""
