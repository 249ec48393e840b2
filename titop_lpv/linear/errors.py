"""The error of the block route."""

from __future__ import annotations

from ..exceptions import TitopError

__all__ = ["BlockRouteError"]


class BlockRouteError(TitopError, ValueError):
    """A model, an equilibrium or a parameter that the block route cannot express."""
