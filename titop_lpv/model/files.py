"""Reading model files: TOML, JSON and (when PyYAML is installed) YAML.

Model files are data: they are parsed, never executed (no ``eval``, no pickle).
"""

from __future__ import annotations

import json
import sys
from os import PathLike
from pathlib import Path
from typing import Any

from ..exceptions import ModelFileError
from .builder import System
from .compiled import Model

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["load_model", "read_description"]


def read_description(path: str | Path) -> dict[str, Any]:
    """Parse a model file into a schema dict (no validation).

    Parameters
    ----------
    path : str or Path
        A ``.toml``, ``.json``, ``.yaml`` or ``.yml`` model file (YAML needs ``pyyaml``).

    Returns
    -------
    dict
        The file's content, as :meth:`System.from_dict` reads it.

    Raises
    ------
    ModelFileError
        Missing file, unknown extension, a syntax error (with the parser's message), or a
        top level that is not a table/mapping (a JSON array, a YAML scalar or empty file).
    """
    data = _parse(Path(path))
    if not isinstance(data, dict):
        raise ModelFileError(f"{Path(path).name}: the model must be a table/mapping at the top "
                             f"level, got {'nothing' if data is None else type(data).__name__}")
    return data


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
                         "(use .toml, .json, .yaml or .yml)")


def load_model(source: str | Path | dict[str, Any] | System) -> Model:
    """Load and compile a model.

    Parameters
    ----------
    source : path, dict or System
        A model file (``.toml``, ``.json``, ``.yaml``), a dict with the same schema
        (docs/design.md §4) or a :class:`~titop_lpv.model.builder.System`; anything else
        is refused with a :class:`ModelError`.

    Returns
    -------
    Model
        The compiled, immutable model.

    Raises
    ------
    ModelFileError
        The file cannot be read or parsed.
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
    if isinstance(source, System):
        return source.compile()
    if isinstance(source, (str, PathLike)):
        return System.from_dict(read_description(source)).compile()
    return System.from_dict(source).compile()  # a dict, or a problem naming what it is
