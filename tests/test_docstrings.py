"""Every public function, class and method of ``titop_lpv`` documents its parameters.

In the style of python-control's ``tests/docstrings_test.py``: the docstrings are parsed with
:mod:`numpydoc.docscrape` and compared with :func:`inspect.signature`.

What is checked
---------------
* **Objects.** Each module of the package (``pkgutil.walk_packages``) is imported; its public
  names are the names of its ``__all__``, or, for a module without ``__all__``, the names
  that do not start with ``_`` and are defined in that module. The functions and classes
  among them are checked once each, under the module that defines them (a name re-exported
  by ``titop_lpv/__init__.py`` is checked where it is defined). For each public class, so
  are its public methods (functions, static and class methods defined in the class body, not
  inherited, whose name does not start with ``_``) and its ``__call__`` if it defines one.
* **Docstring.** Every checked object has a non-empty docstring (a method may inherit the
  docstring of the method it overrides, as :func:`inspect.getdoc` does).
* **Parameters.** Every parameter of the signature, except ``self``/``cls``, is documented
  (``*args`` as ``*args``, ``**kwargs`` as ``**kwargs``) in the ``Parameters`` section, or,
  for a keyword-only parameter or ``**kwargs``, in ``Other Parameters``; and every name
  documented there is a parameter of the signature (a stale entry fails too). Several names
  may share one entry (``x, y : float``).
* **Constructors.** A class's constructor parameters are those of ``inspect.signature(cls)``
  and are documented in the class docstring (numpydoc's convention), or in the docstring of
  ``__init__`` when that docstring has a ``Parameters`` section. A constructor is checked
  only if its ``__init__`` (or ``__new__``) is written in the package; an ``__init__``
  inherited from outside the package (``Exception``, ``object``) is not. A class whose
  constructor is generated (a dataclass or a ``NamedTuple``) may document its fields in
  ``Attributes`` instead of ``Parameters``, as numpydoc recommends for data classes: every
  field of the generated ``__init__`` must appear in ``Parameters`` or ``Attributes``;
  ``Attributes`` may also list properties, so only ``Parameters`` is checked for stale names.
* **Exemptions** are listed in :data:`EXEMPT`, each with its reason; the list is for objects
  to which a rule does not apply, never for undocumented parameters.

"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
from collections.abc import Callable, Iterator

import pytest
from numpydoc.docscrape import ClassDoc, FunctionDoc, NumpyDocString

import titop_lpv

# Objects (by "module.qualname" of their definition) to which a rule does not apply, with the
# reason. Not a place for undocumented parameters: document them instead.
EXEMPT: dict[str, str] = {}

SELF_NAMES = ("self", "cls")


# ------------------------------------------------------------------------------ the checker
def _split_names(name: str) -> list[str]:
    """Names of one numpydoc entry: ``"x, y"`` gives two; ``"\\*args"`` gives ``"*args"``."""
    return [n.strip().replace("\\", "") for n in name.split(",") if n.strip()]


def _documented(doc: NumpyDocString, section: str) -> list[str]:
    return [n for p in doc[section] for n in _split_names(p.name)]


def _signature_names(sig: inspect.Signature) -> dict[str, inspect.Parameter]:
    """``{documented name: parameter}``, ``*args``/``**kwargs`` spelled with their stars."""
    out: dict[str, inspect.Parameter] = {}
    for i, (name, p) in enumerate(sig.parameters.items()):
        if i == 0 and name in SELF_NAMES:
            continue
        if p.kind is p.VAR_POSITIONAL:
            name = "*" + name
        elif p.kind is p.VAR_KEYWORD:
            name = "**" + name
        out[name] = p
    return out


def check_parameters(sig: inspect.Signature, doc: NumpyDocString,
                     fields_in_attributes: bool = False) -> list[str]:
    """Problems between a signature and its parsed docstring (empty list: none).

    ``fields_in_attributes``: the signature is a generated constructor whose fields may be
    documented in ``Attributes`` instead of ``Parameters``.
    """
    params = _signature_names(sig)
    documented = _documented(doc, "Parameters")
    other = _documented(doc, "Other Parameters")
    attributes = _documented(doc, "Attributes") if fields_in_attributes else []
    problems = []
    for name, p in params.items():
        if name in documented or name in attributes:
            continue
        if name in other:
            if p.kind not in (p.KEYWORD_ONLY, p.VAR_KEYWORD):
                problems.append(f"parameter {name!r} is documented in 'Other Parameters' but "
                                "is not keyword-only: document it in 'Parameters'")
            continue
        where = "'Parameters' or 'Attributes'" if fields_in_attributes else "'Parameters'"
        problems.append(f"parameter {name!r} is not documented in {where}")
    for section, names in (("Parameters", documented), ("Other Parameters", other)):
        for name in names:
            if name not in params:
                problems.append(f"{section!r} documents {name!r}, which is not a parameter")
        for name in {n for n in names if names.count(n) > 1}:
            problems.append(f"{section!r} documents {name!r} more than once")
    return problems


# ------------------------------------------------------------------------------ the objects
def _modules() -> Iterator:
    yield titop_lpv
    for info in pkgutil.walk_packages(titop_lpv.__path__, "titop_lpv."):
        yield importlib.import_module(info.name)


def _public(module) -> list[object]:
    if hasattr(module, "__all__"):
        names = list(module.__all__)
    else:
        names = [n for n, obj in vars(module).items() if not n.startswith("_")
                 and getattr(obj, "__module__", None) == module.__name__]
    objs = [getattr(module, n) for n in names]
    return [obj for obj in objs if inspect.isclass(obj) or inspect.isfunction(obj)]


def _in_package(func) -> bool:
    return inspect.isfunction(func) and (func.__module__ or "").startswith("titop_lpv")


def _generated_init(cls: type) -> bool:
    """The constructor is written by ``dataclasses`` or ``typing.NamedTuple``."""
    if dataclasses.is_dataclass(cls):
        return any(dataclasses.is_dataclass(c) and "__init__" in vars(c)
                   and c.__init__.__qualname__ == f"{c.__qualname__}.__init__"
                   and c.__dataclass_params__.init for c in cls.__mro__)
    return issubclass(cls, tuple) and hasattr(cls, "_fields")


def _has_constructor(cls: type) -> bool:
    """Has a constructor to check: written in the package, or generated."""
    if _generated_init(cls):
        return True
    return _in_package(cls.__init__) or (
        _in_package(getattr(cls, "__new__", None)) and cls.__new__ is not object.__new__)


class Item:
    """One object to check: a function, a method or a class."""

    def __init__(self, name: str, obj: object, kind: str, owner: type | None = None):
        self.name, self.obj, self.kind, self.owner = name, obj, kind, owner

    def __repr__(self) -> str:
        return self.name


def _methods(cls: type) -> Iterator[tuple[str, Callable]]:
    for name, attr in vars(cls).items():
        if name.startswith("_") and name != "__call__":
            continue
        if isinstance(attr, (staticmethod, classmethod)):
            attr = attr.__func__
        if inspect.isfunction(attr):
            yield name, attr


def collect() -> list[Item]:
    """Every public function, class and method of the package, once each."""
    seen: dict[str, Item] = {}
    for module in _modules():
        for obj in _public(module):
            name = f"{obj.__module__}.{obj.__qualname__}"
            if name in seen or not name.startswith("titop_lpv"):
                continue
            if inspect.isclass(obj):
                seen[name] = Item(name, obj, "class")
                for mname, meth in _methods(obj):
                    full = f"{name}.{mname}"
                    seen.setdefault(full, Item(full, meth, "method", owner=obj))
            else:
                seen[name] = Item(name, obj, "function")
    return sorted(seen.values(), key=lambda item: item.name)


def _doc_of(item: Item) -> str | None:
    if item.kind == "method":
        return inspect.getdoc(getattr(item.owner, item.obj.__name__))
    doc = item.obj.__doc__
    if item.kind == "class" and doc and _generated_init(item.obj) \
            and doc.startswith(f"{item.obj.__name__}("):
        return None  # the signature that dataclasses and NamedTuple put in an empty docstring
    return doc


def problems_of(item: Item) -> list[str]:
    """Every docstring problem of one object."""
    doc = _doc_of(item)
    if not doc or not doc.strip():
        return ["no docstring"]
    if item.kind != "class":
        return check_parameters(inspect.signature(item.obj), FunctionDoc(item.obj, doc=doc))
    cls = item.obj
    if not _has_constructor(cls):
        return []
    sig = inspect.signature(cls)
    init = vars(cls).get("__init__")
    init_doc = inspect.getdoc(init) if init is not None and _in_package(init) else None
    if init_doc and NumpyDocString(init_doc)["Parameters"]:
        return check_parameters(sig, NumpyDocString(init_doc))
    # show_class_members=False: numpydoc would otherwise fill an empty "Attributes" section
    # with the class's public attributes (a dataclass field with a default among them)
    parsed = ClassDoc(cls, doc=doc, config={"show_class_members": False})
    return check_parameters(sig, parsed, fields_in_attributes=_generated_init(cls))


ITEMS = collect()


def _param(item: Item):
    marks = []
    if item.name in EXEMPT:
        marks.append(pytest.mark.skip(reason=EXEMPT[item.name]))
    return pytest.param(item, id=item.name, marks=marks)


# ------------------------------------------------------------------------------ the tests
@pytest.mark.parametrize("item", [_param(i) for i in ITEMS])
def test_docstring(item: Item):
    problems = problems_of(item)
    assert not problems, f"{item.name}:\n  " + "\n  ".join(problems)


def test_objects_are_found():
    names = {i.name for i in ITEMS}
    for expected in ("titop_lpv.analysis.linearize.linearize", "titop_lpv.model.files.load_model",
                     "titop_lpv.spatial.algebra.skew", "titop_lpv.analysis.lpv.LPVGrid.at"):
        assert expected in names
    assert all(name.startswith("titop_lpv.") for name in names)
    assert not (set(EXEMPT) - names), "EXEMPT names objects that no longer exist"


def test_checker_reports_missing_and_stale_parameters():
    def synthetic(a, b, *args, c=1, **kwargs):
        """Synthetic function.

        Parameters
        ----------
        a : int
            Documented.
        z : int
            Not a parameter.
        *args
            Documented.

        Other Parameters
        ----------------
        b : int
            Positional: belongs in Parameters.
        """

    problems = problems_of(Item("synthetic", synthetic, "function"))
    assert any("'c'" in p and "not documented" in p for p in problems)
    assert any("'**kwargs'" in p and "not documented" in p for p in problems)
    assert any("'z'" in p and "not a parameter" in p for p in problems)
    assert any("'b'" in p and "not keyword-only" in p for p in problems)
    assert not any("'a'" in p or "'*args'" in p for p in problems)
    assert len(problems) == 4

    def undocumented(x):
        pass

    assert problems_of(Item("undocumented", undocumented, "function")) == ["no docstring"]


def test_checker_on_classes():
    @dataclasses.dataclass
    class Fields:
        """Synthetic dataclass.

        Attributes
        ----------
        a : int
            Documented as an attribute.
        """

        a: int
        b: int = 0

    class Written:
        """Synthetic class.

        Parameters
        ----------
        a : int
            Documented.
        """

        def __init__(self, a, b):
            self.a, self.b = a, b

    assert problems_of(Item("Fields", Fields, "class")) == [
        "parameter 'b' is not documented in 'Parameters' or 'Attributes'"]

    @dataclasses.dataclass
    class Bare:
        a: int

    assert problems_of(Item("Bare", Bare, "class")) == ["no docstring"]

    @dataclasses.dataclass
    class Defaulted:
        """Synthetic dataclass whose field has a default (a class attribute numpydoc sees)."""

        a: int = 0

    assert problems_of(Item("Defaulted", Defaulted, "class")) == [
        "parameter 'a' is not documented in 'Parameters' or 'Attributes'"]
    # a class defined here is not in the package: its hand-written __init__ is checked too
    Written.__init__.__module__ = "titop_lpv.synthetic"
    assert problems_of(Item("Written", Written, "class")) == [
        "parameter 'b' is not documented in 'Parameters'"]
