"""titop_lpv: nonlinear TITOP models of rigid multibody systems.

Build a model from a file or with the :class:`System` builder, then simulate it,
evaluate its dynamics (batched, complex-step safe) and analyse it::

    import titop_lpv as tl
    model = tl.load_model("examples/balloon.toml")
    traj = tl.simulate(model, (0.0, 20.0))
    traj.plot(["balloon_x", "balloon_y", "slider_q"])

The public API below is grouped by layer, from the bottom up (docs/design.md §1).
"""

# layer 0, base: every error and warning class
from .exceptions import (
    ArgumentError,
    ArgumentTypeError,
    DynamicsError,
    ModelError,
    ModelFileError,
    ParameterError,
    ShapeError,
    SimulationError,
    TitopError,
    TitopWarning,
    UnknownNameError,
)

# isort: split
# layer 1', robust: uncertain parameters and systems, LFTs, mu, robustness analyses
from .robust.atoms import UComplex, ULTIDyn, UReal, ucomplex, ultidyn, ureal
from .robust.blocks import Block, DeltaStructure, StructureError, UncertaintyError
from .robust.evaluate import ComplexStateSpace
from .robust.interconnect import interconnect
from .robust.lft import (
    IllPosedError,
    affine_lft,
    lft_lower,
    lft_upper,
    polynomial_lft,
    repeat_bounds,
    star,
)
from .robust.lft import reduce as reduce_lft
from .robust.loop import RobustnessError, close_lft, delta_matrix
from .robust.monte_carlo import MonteCarloResult, monte_carlo
from .robust.mu import MuResult, mu_sweep
from .robust.mu_lower import mu_lower
from .robust.mu_upper import mu_upper
from .robust.ops import append, feedback, hstack, parallel, series, uss, vstack
from .robust.performance import RobustPerformanceResult, robust_performance
from .robust.stability import RobustStabilityResult, robust_stability
from .robust.structure import MuBound, block_values, structured_norm
from .robust.tf import tf
from .robust.uss import USS, UncertainTF
from .robust.weights import makeweight
from .robust.worst_case import WorstCaseGainResult, worst_case_gain

# isort: split
# layer 2, multibody: algorithms on the compiled tree
from .multibody.dynamics import motion_vector
from .multibody.energy import center_of_mass, energy, momentum
from .multibody.inverse_dynamics import (
    InverseDynamics,
    inverse_dynamics,
    mass_matrix,
    velocity_names,
)

# isort: split
# layer 3, model: descriptions, the System builder, model files, the compiled Model
from .model import (
    Body,
    Buoyancy,
    Damping,
    Force,
    Free,
    Loop,
    Model,
    Output,
    Parameter,
    Prismatic,
    Revolute,
    Spherical,
    System,
    Torque,
    Universal,
    URDFModel,
    Weld,
    WrenchInput,
    load_model,
    save_model,
)

# isort: split
# layer 4, analysis: simulation, trim, sweeps, linearisation, modes, LPV grids
from .analysis.linearize import Jacobians, LinearizationError, jacobians, linearize
from .analysis.lpv import BodeOverlay, LPVError, LPVGrid, PoleMap, linearize_sweep
from .analysis.modes import ModalTable, Mode, modes
from .analysis.operating_point import OperatingPoint
from .analysis.poles import PoleTable, pole_table
from .analysis.response import ResponseComparison, compare_response
from .analysis.simulate import Trajectory, simulate
from .analysis.sweep import TrimSweep, trim_sweep
from .analysis.trim import TrimError, TrimSpecError, trim

# isort: split
# layer 5, linear: linear TITOP blocks assembled into uncertain models
from .linear.errors import BlockRouteError
from .linear.uncertain import UncertainLinearization, linearize_uncertain

# isort: split
# layer 6, io: files of linear models, operating points and grids
from .io.export import load_linear, save_linear

__version__ = "0.1.0"

__all__ = [
    "USS",
    "ArgumentError",
    "ArgumentTypeError",
    "Block",
    "BlockRouteError",
    "BodeOverlay",
    "Body",
    "Buoyancy",
    "ComplexStateSpace",
    "Damping",
    "DeltaStructure",
    "DynamicsError",
    "Force",
    "Free",
    "IllPosedError",
    "InverseDynamics",
    "Jacobians",
    "LPVError",
    "LPVGrid",
    "LinearizationError",
    "Loop",
    "ModalTable",
    "Mode",
    "Model",
    "ModelError",
    "ModelFileError",
    "MonteCarloResult",
    "MuBound",
    "MuResult",
    "OperatingPoint",
    "Output",
    "Parameter",
    "ParameterError",
    "PoleMap",
    "PoleTable",
    "Prismatic",
    "ResponseComparison",
    "Revolute",
    "RobustPerformanceResult",
    "RobustStabilityResult",
    "RobustnessError",
    "ShapeError",
    "SimulationError",
    "Spherical",
    "StructureError",
    "System",
    "TitopError",
    "TitopWarning",
    "Torque",
    "Trajectory",
    "TrimError",
    "TrimSpecError",
    "TrimSweep",
    "UComplex",
    "ULTIDyn",
    "URDFModel",
    "UReal",
    "UncertainLinearization",
    "UncertainTF",
    "UncertaintyError",
    "Universal",
    "UnknownNameError",
    "Weld",
    "WorstCaseGainResult",
    "WrenchInput",
    "__version__",
    "affine_lft",
    "append",
    "block_values",
    "center_of_mass",
    "close_lft",
    "compare_response",
    "delta_matrix",
    "energy",
    "feedback",
    "hstack",
    "interconnect",
    "inverse_dynamics",
    "jacobians",
    "lft_lower",
    "lft_upper",
    "linearize",
    "linearize_sweep",
    "linearize_uncertain",
    "load_linear",
    "load_model",
    "makeweight",
    "mass_matrix",
    "modes",
    "momentum",
    "monte_carlo",
    "motion_vector",
    "mu_lower",
    "mu_sweep",
    "mu_upper",
    "parallel",
    "pole_table",
    "polynomial_lft",
    "reduce_lft",
    "repeat_bounds",
    "robust_performance",
    "robust_stability",
    "save_linear",
    "save_model",
    "series",
    "simulate",
    "star",
    "structured_norm",
    "tf",
    "trim",
    "trim_sweep",
    "ucomplex",
    "ultidyn",
    "ureal",
    "uss",
    "velocity_names",
    "vstack",
    "worst_case_gain",
]
