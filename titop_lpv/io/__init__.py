"""Layer 6: files written and read back: linear models, operating points and grids
(:mod:`~titop_lpv.io.export`: ``.mat``, ``.npz``, JSON)."""
