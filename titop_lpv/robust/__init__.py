"""Robustness layer: uncertain systems as linear fractional transformations, the structured
singular value μ and the robustness analyses built on them.

A side branch at layer 1 of the package: it imports only from itself and from layer 0
(``exceptions``, ``names``, ``progress``, ``plots``); the layers above import it, and
:mod:`titop_lpv` re-exports its public names. Its modules, from the bottom up:
:mod:`~titop_lpv.robust.abcd` (state-space array kernels: static loop closure, star
product, the one upper LFT :func:`~titop_lpv.robust.abcd.lft_upper_abcd`),
:mod:`~titop_lpv.robust.blocks` (the Δ block structure
:class:`~titop_lpv.robust.blocks.DeltaStructure` and Δ from values),
:mod:`~titop_lpv.robust.frequency` (frequency grids), :mod:`~titop_lpv.robust.system` (an
uncertain system's data), :mod:`~titop_lpv.robust.evaluate` (evaluation at values, on grids,
at vertices and samples), :mod:`~titop_lpv.robust.algebra` (``+ − * / @``, feedback,
concatenation on that data), :mod:`~titop_lpv.robust.uss` (the
:class:`~titop_lpv.robust.uss.USS` class and its operators), :mod:`~titop_lpv.robust.atoms`
(``ureal``, ``ucomplex``, ``ultidyn``), :mod:`~titop_lpv.robust.ops` (the public algebra),
:mod:`~titop_lpv.robust.interconnect` (name-based interconnection),
:mod:`~titop_lpv.robust.lft` (LFTs and star products of matrices and systems, LFT
constructors, reduction); for μ, :mod:`~titop_lpv.robust.structure` (index maps, bounds),
:mod:`~titop_lpv.robust.mu_upper`, :mod:`~titop_lpv.robust.mu_lower` and
:mod:`~titop_lpv.robust.mu` (frequency sweeps); for the analyses,
:mod:`~titop_lpv.robust.loop` (the uncertain loop split into its parts, Δ matrices, the
imaginary-axis rule), :mod:`~titop_lpv.robust.stability`, :mod:`~titop_lpv.robust.worst_case`
and :mod:`~titop_lpv.robust.monte_carlo`.
"""
