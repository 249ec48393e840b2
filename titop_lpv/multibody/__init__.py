"""Layer 2: the compiled kinematic tree and the multibody algorithms (docs/design.md §1, §2).

:mod:`~titop_lpv.multibody.tree` holds the immutable, thread-safe :class:`Tree` that every
algorithm reads; :mod:`~titop_lpv.multibody.kinematics`, :mod:`~titop_lpv.multibody.dynamics`
(forward dynamics by the two-sweep TITOP recursion), :mod:`~titop_lpv.multibody.kernel` (the
same recursion compiled by numba), :mod:`~titop_lpv.multibody.loops`,
:mod:`~titop_lpv.multibody.inverse_dynamics` and :mod:`~titop_lpv.multibody.energy` take it
as their first argument. Nothing here knows the model file or the builder.
"""
