"""The disk-cache key of the compiled kernel (:mod:`titop_lpv.multibody.kernel`): the source
of all its modules together.

numba keys a cached function by its own source file (a hash of that file): a cached
``kernel._forward_work``, whose compiled code links the sweeps of :mod:`kernel_forward`,
:mod:`kernel_backward`, :mod:`kernel_loads` and the joint laws of :mod:`kernel_joints`,
would stay in use after an edit of those modules alone, silently running the old code.
:func:`install` puts cache locators ahead of numba's own that key the functions of these
files by the digest of all of them, so an edit of any one recompiles the kernel once.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

__all__ = ["FILES", "install", "sources_digest"]

FILES = ("kernel.py", "kernel_forward.py", "kernel_backward.py", "kernel_loads.py",
         "kernel_joints.py", "kernel_fp.py", "kernel_pack.py", "kernel_rows.py",
         "sensor_kernel.py")  # compiled modules (this dir); kernel_rows links both kernels
_LOCATORS = ("UserProvidedCacheLocator", "InTreeCacheLocator", "UserWideCacheLocator")


def _paths() -> list[str]:
    here = Path(__file__).resolve().parent
    return [os.path.realpath(here / name) for name in FILES]


def sources_digest() -> bytes:
    """SHA-256 of the kernel's module sources (:data:`FILES`, in that order).

    Returns
    -------
    bytes
        The digest (32 bytes); an unreadable file counts as empty.
    """
    h = hashlib.sha256()
    for path in _paths():
        h.update(path.encode())
        try:
            h.update(Path(path).read_bytes())
        except OSError:
            h.update(b"")
    return h.digest()


def install(numba: Any) -> bool:
    """Key numba's disk cache of the kernel's functions by :func:`sources_digest` (once per
    process; call before the functions are decorated).

    Parameters
    ----------
    numba : module
        The imported numba package.

    Returns
    -------
    bool
        True when the locators are in place; False when numba's caching internals are not
        the expected ones (numba's own per-file key then applies).
    """
    try:
        from numba.core import caching
    except ImportError:
        return False
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    classes = getattr(impl, "_locator_classes", None)
    if not isinstance(classes, list):
        return False
    if any(getattr(cls, "titop_kernel", False) for cls in classes):
        return True
    files = set(_paths())
    digest = sources_digest()
    keyed = []
    for name in _LOCATORS:
        base = getattr(caching, name, None) or getattr(caching, "_" + name, None)
        if base is None:
            continue

        class Keyed(base):  # type: ignore[misc, valid-type]
            titop_kernel = True

            def get_source_stamp(self) -> bytes:
                return digest

            @classmethod
            def from_function(cls, py_func: Any, py_file: str) -> Any:
                if os.path.realpath(py_file) not in files:
                    return None
                return super().from_function(py_func, py_file)

        Keyed.__name__ = Keyed.__qualname__ = "Kernel" + name
        keyed.append(Keyed)
    if not keyed:
        return False
    impl._locator_classes = keyed + classes
    return True
