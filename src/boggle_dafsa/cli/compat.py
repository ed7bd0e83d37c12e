"""The one module that reaches into typer's vendored click (typer 0.26-0.28, as pyproject pins).

typer re-exports neither the usage errors its parser raises nor click's Context type.
"""

from __future__ import annotations

from typer._click import Context
from typer._click.exceptions import NoArgsIsHelpError, UsageError

__all__ = ["Context", "NoArgsIsHelpError", "UsageError"]
