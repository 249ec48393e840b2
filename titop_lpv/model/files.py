"""Reading model files: TOML, JSON, (when PyYAML is installed) YAML, and URDF robots.

Model files are data: they are parsed, never executed (no ``eval``, no pickle). A URDF file
is translated into the same schema (:mod:`titop_lpv.model.urdf`) and compiled into a
:class:`URDFModel`: a model that also accepts the URDF joint names where a body is looked up.
"""

from __future__ import annotations

import json
import sys
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np

from ..exceptions import ModelFileError
from .builder import System
from .compiled import Model
from .records import gc_paused
from .urdf import read_urdf

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["URDFModel", "load_model", "load_urdf", "read_description"]


def read_description(path: str | Path, *, floating: bool = False, mimic: str = "refuse"
                     ) -> dict[str, Any]:
    """Parse a model file into a schema dict (no validation).

    Parameters
    ----------
    path : str or Path
        A ``.toml``, ``.json``, ``.yaml`` or ``.yml`` model file (YAML needs ``pyyaml``), or
        a ``.urdf`` robot (translated into the schema, see :mod:`titop_lpv.model.urdf`).
    floating : bool, optional
        URDF only: hang the root link from the world by a ``free`` joint. Default False.
    mimic : {"refuse", "independent"}, optional
        URDF only: what to do with ``<mimic>`` joints. Default ``"refuse"``.

    Returns
    -------
    dict
        The file's content, as :meth:`System.from_dict` reads it.

    Raises
    ------
    ModelFileError
        Missing file, unknown extension, a syntax error (with the parser's message), or a
        top level that is not a table/mapping (a JSON array, a YAML scalar or empty file), a
        URDF file that :func:`~titop_lpv.model.urdf.parse_urdf` refuses, or ``floating`` /
        ``mimic`` given for a file that is not URDF.
    """
    if _is_urdf(path):
        return read_urdf(path, floating=floating, mimic=mimic).data
    _urdf_only(path, floating, mimic)
    data = _parse(Path(path))
    if not isinstance(data, dict):
        raise ModelFileError(f"{Path(path).name}: the model must be a table/mapping at the top "
                             f"level, got {'nothing' if data is None else type(data).__name__}")
    return data


def _is_urdf(path: str | PathLike[str]) -> bool:
    return Path(path).suffix.lower() == ".urdf"


def _urdf_only(path: str | PathLike[str], floating: bool, mimic: str) -> None:
    """Refuse the URDF options for another kind of file (they would be silently ignored)."""
    if floating is not False or mimic != "refuse":
        given = "floating" if floating is not False else f"mimic={mimic!r}"
        raise ModelFileError(f"{Path(path).name}: {given} applies to URDF files only (a model "
                             "file says its joints itself)")


def _parse(path: Path) -> Any:
    """The content of a model file, whatever its top level."""
    try:
        exists = path.is_file()
    except (OSError, ValueError):  # a name the system cannot hold (too long, a NUL byte)
        exists = False
    if not exists:
        raise ModelFileError(f"model file {str(path)!r} does not exist")
    suffix = path.suffix.lower()
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise ModelFileError(f"{path.name}: not UTF-8 text ({err})") from None
    except OSError as err:
        raise ModelFileError(f"{path.name}: cannot be read ({err.strerror or err})") from None
    try:
        if suffix == ".toml":
            return tomllib.loads(text)
        if suffix == ".json":
            return json.loads(text)
        if suffix in (".yaml", ".yml"):
            try:
                import yaml
            except ImportError:  # pragma: no cover - depends on the environment
                raise ModelFileError(f"{path.name}: reading YAML needs PyYAML "
                                     "(pip install pyyaml)") from None
            return yaml.safe_load(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as err:
        raise ModelFileError(f"{path.name}: malformed {suffix[1:].upper()}: {err}") from None
    except RecursionError:
        raise ModelFileError(f"{path.name}: nested too deeply to be a model") from None
    except Exception as err:  # yaml.YAMLError without importing yaml at module level
        if type(err).__module__.startswith("yaml"):
            raise ModelFileError(f"{path.name}: malformed YAML: {err}") from None
        raise
    raise ModelFileError(f"{path.name}: unknown model file type {suffix!r} "
                         "(use .toml, .json, .yaml, .yml or .urdf)")


def load_model(source: str | Path | dict[str, Any] | System, *, floating: bool = False,
               mimic: str = "refuse") -> Model:
    """Load and compile a model.

    Parameters
    ----------
    source : path, dict or System
        A model file (``.toml``, ``.json``, ``.yaml``), a URDF robot (``.urdf``, see
        :mod:`titop_lpv.model.urdf`), a dict with the same schema (docs/design.md §4) or a
        :class:`~titop_lpv.model.builder.System`; anything else is refused with a
        :class:`ModelError`.
    floating : bool, optional
        URDF only: hang the root link from the world by a ``free`` joint (floating base)
        instead of welding it. Default False.
    mimic : {"refuse", "independent"}, optional
        URDF only: refuse ``<mimic>`` joints (default) or make them independent joints.

    Returns
    -------
    Model
        The compiled, immutable model (a :class:`~titop_lpv.model.urdf.URDFModel` for a
        URDF file: its joint names are accepted where a body is looked up).

    Raises
    ------
    ModelFileError
        The file cannot be read or parsed, or ``floating``/``mimic`` are given for a source
        that is not a URDF file.
    ModelError
        The description is invalid (every problem is listed, naming the body and field).

    Examples
    --------
    The paper's balloon, as shipped with the repository (``titop-lpv demo`` uses the copy
    inside the package, ``titop_lpv/data/balloon.toml``):

    >>> import titop_lpv as tl
    >>> model = tl.load_model("examples/balloon.toml")
    >>> model.n_states, model.n_inputs, model.n_outputs
    (18, 1, 9)
    >>> model.input_names, model.param_names
    (('slider_tau',), ('k', 'ds', 'dp1', 'dp2'))
    """
    if isinstance(source, (str, PathLike)) and _is_urdf(source):
        return load_urdf(source, floating=floating, mimic=mimic)
    _urdf_only(source if isinstance(source, (str, PathLike)) else "the model", floating, mimic)
    if isinstance(source, System):
        return source.compile()
    if isinstance(source, (str, PathLike)):
        source = read_description(source)
    with gc_paused():  # reading and compiling in one pause: the records are not garbage
        return System.from_dict(source).compile()  # a dict, or a problem naming what it is


class URDFModel(Model):
    """A :class:`~titop_lpv.model.compiled.Model` read from a URDF file: the URDF joint
    names (and original link names) are accepted wherever a body is looked up.

    Build it with :func:`load_urdf` (or ``tl.load_model("robot.urdf")``), which compiles
    the translated description and adds the names with :meth:`from_model`.

    Parameters
    ----------
    system : System
        The description (validated), as for :class:`~titop_lpv.model.compiled.Model`.
    plan : Plan
        What validation returned, as for :class:`~titop_lpv.model.compiled.Model`.

    Attributes
    ----------
    aliases : dict of str to str
        Alias → body name (see :class:`UrdfDescription`).
    urdf_joints : dict of str to str
        URDF joint name → the body it moves (or welds).
    """

    aliases: dict[str, str]
    urdf_joints: dict[str, str]

    @classmethod
    def from_model(cls, model: Model, aliases: dict[str, str], urdf_joints: dict[str, str]
                   ) -> URDFModel:
        """The compiled ``model`` with the URDF names (rebuilt as unpickling does).

        Parameters
        ----------
        model : Model
            The model compiled from the translated description.
        aliases : dict of str to str
            Alias → body name.
        urdf_joints : dict of str to str
            URDF joint name → body name.

        Returns
        -------
        URDFModel
        """
        out = cls.__new__(cls)
        out.__setstate__({**model.__getstate__(), "aliases": dict(aliases),
                          "urdf_joints": dict(urdf_joints)})
        return out

    def body_index(self, body: str) -> int:
        """Index of a body in :attr:`body_names`; a URDF joint name designates its child.

        Parameters
        ----------
        body : str
            Body name, URDF joint name or URDF link name.

        Returns
        -------
        int
        """
        return super().body_index(self.aliases.get(body, body))

    def point_slots(self, body: str, point: str) -> np.ndarray:
        """Slot indices of a named point's vector (body frame); ``body`` may be an alias.

        Parameters
        ----------
        body : str
            Body name, URDF joint name or URDF link name.
        point : str
            ``"origin"``, ``"com"`` or a port of the body.

        Returns
        -------
        ndarray, shape (3,)
        """
        return super().point_slots(self.aliases.get(body, body), point)


def load_urdf(path: str | Path, *, floating: bool = False, mimic: str = "refuse") -> URDFModel:
    """Load and compile a URDF robot (see :func:`parse_urdf` for the translation).

    Parameters
    ----------
    path : str or Path
        The ``.urdf`` file.
    floating : bool, optional
        A ``free`` root joint (floating base) instead of a weld to the world.
    mimic : {"refuse", "independent"}, optional
        What to do with ``<mimic>`` joints. Default ``"refuse"``.

    Returns
    -------
    URDFModel
        The compiled model; its description (``to_dict()``) is a plain model schema that
        :func:`~titop_lpv.model.writer.save_model` writes to TOML or JSON.

    Raises
    ------
    ModelFileError
        The URDF file is refused.
    ModelError
        The translated description is invalid (e.g. an inertia that violates the triangle
        inequality, a moving joint of a massless subtree), naming the body.
    """
    desc = read_urdf(path, floating=floating, mimic=mimic)
    model = System.from_dict(desc.data).compile()
    return URDFModel.from_model(model, desc.aliases, desc.joints)
