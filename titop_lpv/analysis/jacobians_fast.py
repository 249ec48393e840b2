"""The common call of :func:`~titop_lpv.analysis.linearize.jacobians` — ``A``, ``B`` and
``f0`` of a fixed-base tree, without outputs or parameter sensitivities — at the cost of the
compiled kernel.

:class:`~titop_lpv.multibody.derivatives_call.JacobianCall` (one per model, in its memo)
runs the kernel when the arguments need no conversion and the parameter vector was seen
before; :func:`fast_jacobians` wraps its ``[A B]`` and ``ẋ`` in the result, built as the
dataclass's ``__init__`` would build it but without its ``object.__setattr__`` per field
(about 3× slower for eight fields). Anything else returns None: the caller takes the general
route, which converts and checks every argument and raises the typed errors.
"""

from __future__ import annotations

from typing import Any, TypeVar

from ..multibody.derivatives_call import JacobianCall
from ..multibody.tree import Tree

__all__ = ["fast_jacobians"]

R = TypeVar("R")
_NEW = object.__new__


def fast_jacobians(model: Tree, x: Any, u: Any, params: Any, cls: type[R]) -> R | None:
    """``cls(A, B, C, D, f0, y0, None, None)`` by the fast route, or None.

    Parameters
    ----------
    model : Tree
        The compiled model.
    x, u, params : Any
        As :func:`~titop_lpv.analysis.linearize.jacobians` takes them: the state [SI units,
        angles in rad], the input (None: zero) and the parameter values (None: defaults).
    cls : type
        :class:`~titop_lpv.analysis.linearize.Jacobians` (a frozen dataclass with a
        ``__dict__`` and the fields ``A``, ``B``, ``C``, ``D``, ``f0``, ``y0``, ``Fp``,
        ``Hp``).

    Returns
    -------
    cls or None
        ``A``, ``B`` views of a fresh ``[A B]``, a fresh ``f0``; ``C`` (0, n_states), ``D``
        (0, n_inputs) and ``y0`` (0,) the model's empty read-only arrays
        (:attr:`JacobianCall.empty`); ``Fp``, ``Hp`` None. None when the general route
        must serve the call.
    """
    call = model.memo("jacobian_call", None, lambda: JacobianCall(model))
    fast = call.route(model, x, u, params)
    if fast is None:
        return None
    J, f0 = fast
    n_x, empty = J.shape[0], call.empty
    result = _NEW(cls)
    fields = result.__dict__
    fields["A"], fields["B"], fields["C"], fields["D"] = J[:, :n_x], J[:, n_x:], *empty[:2]
    fields["f0"], fields["y0"], fields["Fp"], fields["Hp"] = f0, empty[2], None, None
    return result
