"""JSON from Python objects, numpy arrays and scalars included."""

import json
from typing import Any


def _default(obj: Any) -> Any:
    tolist = getattr(obj, "tolist", None)  # numpy arrays and numpy scalars
    if callable(tolist):
        return tolist()
    if isinstance(obj, (set, frozenset, tuple)):
        return list(obj)
    raise TypeError(f"{type(obj).__name__} is not JSON data")


def dumps(obj: Any) -> str:
    """JSON text of `obj`; NaN and infinities are refused (JSON has none)."""
    return json.dumps(obj, default=_default, allow_nan=False)
