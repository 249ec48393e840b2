"""Layer 4: what is done with a compiled model (docs/design.md §1, §3).

Simulation, operating points and trim, sweeps over parameters, exact linearisation, modes,
LPV grids and linear-versus-nonlinear responses; each returns a typed result whose
``.plot()`` draws it through :mod:`titop_lpv.plots`.
"""
