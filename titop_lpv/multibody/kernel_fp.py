"""Subnormal numbers flushed to zero while the compiled kernel (:mod:`titop_lpv.multibody.kernel`)
runs: the x86 MXCSR bits FTZ (flush to zero) and DAZ (denormals are zero) are set on entry
and the caller's register restored on exit.

Why: in a long chain the influence of a moving branch on far bodies decays exponentially
along the recursion, and somewhere it crosses the subnormal range (below 2.2e-308), where
every floating-point operation costs the processor tens of cycles more. On the
100 002-d.o.f. branch system this slowed an evaluation by about a third once the motion
had started. Flushing changes only values below 2.2e-308 (to zero): far below the rounding
of any state or derivative of order 1e-292 or more.

Other processors (no MXCSR): both functions do nothing. The functions here are plain Python
no-ops until :func:`compile_all` replaces them by numba dispatchers.
"""

from __future__ import annotations

import platform
from typing import Any

__all__ = ["FTZ_DAZ", "compile_all"]

FTZ_DAZ = 0x8040  # MXCSR bits 15 (FTZ) and 6 (DAZ)
_NAMES = ("fp_enter", "fp_leave")


def fp_enter():
    """Set FTZ and DAZ; returns the previous MXCSR (0 where there is none)."""
    return 0


def fp_leave(old):
    """Restore the MXCSR ``old`` returned by :func:`fp_enter`."""
    return 0


def compile_all(numba: Any) -> None:
    """Replace :func:`fp_enter` and :func:`fp_leave` by numba dispatchers: on x86-64 they
    read and write the MXCSR register (LLVM's ``stmxcsr``/``ldmxcsr``), elsewhere they stay
    no-ops.

    Parameters
    ----------
    numba : module
        The imported numba package.
    """
    space = globals()
    if platform.machine().lower() not in ("x86_64", "amd64"):
        for name in _NAMES:
            space[name] = numba.njit(cache=True)(space[name])
        return
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic

    def _mxcsr(builder: Any, store: bool) -> Any:
        i8p = ir.IntType(8).as_pointer()
        fnty = ir.FunctionType(ir.VoidType(), [i8p])
        name = "llvm.x86.sse.ldmxcsr" if store else "llvm.x86.sse.stmxcsr"
        return cgutils.get_or_insert_function(builder.module, fnty, name)

    @intrinsic
    def _enter(typingctx: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            i32 = ir.IntType(32)
            slot = cgutils.alloca_once(builder, i32)
            ptr = builder.bitcast(slot, ir.IntType(8).as_pointer())
            builder.call(_mxcsr(builder, False), [ptr])
            old = builder.load(slot)
            builder.store(builder.or_(old, ir.Constant(i32, FTZ_DAZ)), slot)
            builder.call(_mxcsr(builder, True), [ptr])
            return builder.zext(old, ir.IntType(64))

        return types.int64(), codegen

    @intrinsic
    def _leave(typingctx: Any, old: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            i32 = ir.IntType(32)
            slot = cgutils.alloca_once(builder, i32)
            builder.store(builder.trunc(args[0], i32), slot)
            builder.call(_mxcsr(builder, True),
                         [builder.bitcast(slot, ir.IntType(8).as_pointer())])
            return ir.Constant(ir.IntType(64), 0)

        return types.int64(types.int64), codegen

    def enter() -> int:
        return _enter()

    def leave(old: int) -> int:
        return _leave(old)

    space["fp_enter"] = numba.njit(error_model="numpy")(enter)
    space["fp_leave"] = numba.njit(error_model="numpy")(leave)
