"""Layer 1: spatial algebra and attitudes (docs/design.md §1, §2).

:mod:`~titop_lpv.spatial.algebra` holds the paper's operators (``(*v)``, ``τ_PB``, ``D_P``,
``C(x')``, transports, the revolute DCM) and batched matrix–vector products;
:mod:`~titop_lpv.spatial.euler` the 12 Euler sequences, DCMs and rate matrices;
:mod:`~titop_lpv.spatial.quaternion` unit quaternions (products, DCMs, rates, rotation
vectors). Pure functions of arrays: vectorised over leading axes and complex-step safe.
"""
