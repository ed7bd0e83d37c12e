"""Commands about dictionaries: build, dump, verify, inspect, lookup, complete, dot."""

from __future__ import annotations

from . import app  # noqa: F401
