"""Exception hierarchy of titop_lpv.

Every error a user can cause derives from :class:`TitopError` and from the builtin
exception that best describes it, so ``except ValueError`` keeps working.
"""

from __future__ import annotations

__all__ = [
    "ArgumentError",
    "ArgumentTypeError",
    "DynamicsError",
    "ModelError",
    "ModelFileError",
    "ParameterError",
    "ShapeError",
    "SimulationError",
    "TitopError",
    "TitopWarning",
    "UnknownNameError",
]


class TitopError(Exception):
    """Base class of every titop_lpv error."""


class ModelError(TitopError, ValueError):
    """A model description is invalid.

    All problems found in one validation pass are gathered in :attr:`problems`
    (one line each, naming the body, joint, load or field at fault) and
    reported together in the message.

    Parameters
    ----------
    problems : str or list of str
        One problem, or every problem found (one line each).
    name : str, optional
        Name of the model, quoted in the message's head.

    Attributes
    ----------
    problems : list of str
        The problems, one line each.

    Examples
    --------
    >>> print(ModelError(["body 'b': mass -1 < 0", "joint 'j': zero axis"], name="arm"))
    model 'arm' is invalid (2 problems):
      - body 'b': mass -1 < 0
      - joint 'j': zero axis
    """

    def __init__(self, problems: str | list[str], *, name: str | None = None):
        if isinstance(problems, str):
            problems = [problems]
        self.problems: list[str] = list(problems)
        head = f"model {name!r} is invalid" if name else "invalid model"
        if len(self.problems) == 1:
            msg = f"{head}: {self.problems[0]}"
        else:
            lines = "\n".join(f"  - {p}" for p in self.problems)
            msg = f"{head} ({len(self.problems)} problems):\n{lines}"
        super().__init__(msg)


class ModelFileError(ModelError):
    """A model file cannot be read: missing, unknown format or malformed.

    Parameters
    ----------
    message : str
        What is wrong, naming the file; the whole message (and the one entry of
        :attr:`problems`).
    """

    def __init__(self, message: str):
        self.problems = [message]
        ValueError.__init__(self, message)


class ParameterError(ModelError):
    """Parameter values given at run time make the model invalid.

    Raised by every evaluation (dynamics, outputs, energy, trim, linearisation, ...) that
    receives parameter values other than the defaults: a value that is not finite or lies
    outside the parameter's declared ``[min, max]``, or values that make a body's mass
    negative, its inertia indefinite, a joint rotation not orthonormal or a joint axis zero.
    :attr:`problems` names each parameter and body at fault.

    Parameters
    ----------
    problems : str or list of str
        One problem, or every problem found (one line each).
    name : str, optional
        Name of the model, quoted in the message.
    """

    def __init__(self, problems: str | list[str], *, name: str | None = None):
        ModelError.__init__(self, problems, name=name)
        head = f"model {name!r}" if name else "model"
        lines = self.problems
        msg = (f"invalid parameter values for {head}: {lines[0]}" if len(lines) == 1 else
               f"invalid parameter values for {head} ({len(lines)} problems):\n"
               + "\n".join(f"  - {p}" for p in lines))
        ValueError.__init__(self, msg)


class ArgumentError(TitopError, ValueError):
    """A function argument has a value that cannot be used: not finite, negative, not an
    integer, out of range or too large to be represented (the message names it)."""


class ArgumentTypeError(TitopError, TypeError):
    """A function argument has the wrong type: a string or None where a number, an array, a
    system or a callable is expected (the message names it)."""


class ShapeError(TitopError, ValueError):
    """A runtime argument (state, input, parameter vector) has the wrong shape."""


class UnknownNameError(TitopError, KeyError):
    """A state, input, output, parameter, body or port name is not in the model."""

    def __str__(self) -> str:  # KeyError would quote the whole message
        return str(self.args[0]) if self.args else ""


class DynamicsError(TitopError, ArithmeticError):
    """The dynamics cannot be evaluated (e.g. a joint with zero apparent inertia)."""


class SimulationError(TitopError, RuntimeError):
    """The ODE solver stopped before the end of the time span."""


class TitopWarning(UserWarning):
    """A legal but suspicious model (e.g. an inertia that violates the triangle inequality)."""
