"""Signal, parameter and body names: the one lookup rule of the package.

Signal names join the body name and the quantity with an underscore (``slider_q``); users
may write the dotted form (``slider.q``) wherever a name is looked up. python-control
reserves the dot for ``subsystem.signal``, so the underscored form is the one stored
(docs/design.md §4). Every lookup of a user-given name goes through :func:`find`,
:func:`resolve` or :func:`index`.

>>> from titop_lpv.names import canonical, index
>>> canonical("slider.q")
'slider_q'
>>> index("pendulum1.q", ("slider_q", "pendulum1_q"), "state")
1
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from .exceptions import UnknownNameError

__all__ = ["canonical", "find", "index", "plural", "resolve"]


def canonical(name: str) -> str:
    """The stored form of a name: every ``.`` replaced by ``_``.

    Parameters
    ----------
    name : str
        A signal, parameter or body name, dotted (``slider.q``) or underscored.

    Returns
    -------
    str
    """
    return name.replace(".", "_")


def find(name: object, names: Collection[str]) -> str | None:
    """The entry of ``names`` that ``name`` designates, or ``None``.

    The name itself is tried first, then its :func:`canonical` form.

    Parameters
    ----------
    name : object
        The name a user gave (anything that is not a string matches nothing).
    names : collection of str
        The known names.

    Returns
    -------
    str or None
    """
    if not isinstance(name, str):
        return None
    for key in (name, canonical(name)):
        if key in names:
            return key
    return None


def plural(what: str) -> str:
    """English plural of a kind of name (``body`` → ``bodies``, ``state`` → ``states``).

    Parameters
    ----------
    what : str
        The kind of name, singular.

    Returns
    -------
    str
    """
    return what[:-1] + "ies" if what.endswith("y") and what[-2:-1] not in "aeiou" else what + "s"


def resolve(name: object, names: Collection[str], what: str, *, context: str = "") -> str:
    """The entry of ``names`` that ``name`` designates; a typed error naming it otherwise.

    Parameters
    ----------
    name : object
        The name a user gave.
    names : collection of str
        The known names.
    what : str
        The kind of name, singular (``"state"``, ``"body"``, ``"parameter"`` ...), for the
        message.
    context : str, optional
        Where the name was given (an argument name), prefixed to the message.

    Returns
    -------
    str
        The stored name.

    Raises
    ------
    UnknownNameError
        ``name`` is not in ``names``; the message lists the known names.
    """
    key = find(name, names)
    if key is None:
        head = f"{context}: " if context else ""
        raise UnknownNameError(f"{head}unknown {what} {name!r}; {plural(what)} are: "
                               f"{list(names)}")
    return key


def index(name: object, names: Sequence[str], what: str, *, context: str = "") -> int:
    """Position in ``names`` of the entry that ``name`` designates (see :func:`resolve`).

    Parameters
    ----------
    name : object
        The name a user gave.
    names : sequence of str
        The known names, in order.
    what : str
        The kind of name, singular, for the message.
    context : str, optional
        Where the name was given, prefixed to the message.

    Returns
    -------
    int

    Raises
    ------
    UnknownNameError
        ``name`` is not in ``names``.
    """
    return list(names).index(resolve(name, names, what, context=context))
