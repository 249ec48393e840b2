"""titop_lpv: nonlinear TITOP models of rigid multibody systems.

Build a model from a file or with the :class:`System` builder, then simulate it,
evaluate its dynamics (batched, complex-step safe) and analyse it::

    import titop_lpv as tl
    model = tl.load_model("examples/balloon.toml")
    traj = tl.simulate(model, (0.0, 20.0))
    traj.plot(["balloon_x", "balloon_y", "slider_q"])
"""

from .dynamics import motion_vector
from .energy import center_of_mass, energy, momentum
from .exceptions import (
    DynamicsError,
    ModelError,
    ModelFileError,
    ParameterError,
    ShapeError,
    TitopError,
    UnknownNameError,
)
from .inverse_dynamics import InverseDynamics, inverse_dynamics, mass_matrix, velocity_names
from .lft import IllPosedError, affine_lft, lft_lower, lft_upper, polynomial_lft, star
from .lft import reduce as reduce_lft
from .linearize import Jacobians, LinearizationError, jacobians, linearize
from .lpv import BodeOverlay, LPVError, LPVGrid, PoleMap, linearize_sweep
from .model import (
    Body,
    Buoyancy,
    Force,
    Free,
    Loop,
    Model,
    Output,
    Parameter,
    Prismatic,
    Revolute,
    System,
    TitopWarning,
    Torque,
    Weld,
    WrenchInput,
    load_model,
)
from .modes import ModalTable, Mode, modes
from .monte_carlo import MonteCarloResult, monte_carlo
from .mu import MuResult, mu_sweep
from .mu_lower_bound import mu_lower
from .mu_structure import MuBound, StructureError, block_values, structured_norm
from .mu_upper_bound import mu_upper
from .operating_point import OperatingPoint
from .response import ResponseComparison, compare_response
from .robust import (
    RobustnessError,
    RobustStabilityResult,
    close_lft,
    delta_matrix,
    robust_stability,
)
from .simulate import Trajectory, simulate
from .sweep import TrimSweep, trim_sweep
from .trim import TrimError, TrimSpecError, trim
from .uncertain import USS, Block, DeltaStructure, UncertaintyError
from .uncertain_eval import ComplexStateSpace
from .uncertain_interconnect import interconnect
from .uncertain_ops import append, feedback, hstack, parallel, series, uss, vstack
from .uncertain_params import UComplex, ULTIDyn, UReal, ucomplex, ultidyn, ureal
from .worst_case import WorstCaseGainResult, worst_case_gain

__version__ = "0.1.0"

__all__ = [
    "USS",
    "Block",
    "BodeOverlay",
    "Body",
    "Buoyancy",
    "ComplexStateSpace",
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
    "Prismatic",
    "ResponseComparison",
    "Revolute",
    "RobustStabilityResult",
    "RobustnessError",
    "ShapeError",
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
    "UReal",
    "UncertaintyError",
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
    "load_model",
    "mass_matrix",
    "modes",
    "momentum",
    "monte_carlo",
    "motion_vector",
    "mu_lower",
    "mu_sweep",
    "mu_upper",
    "parallel",
    "polynomial_lft",
    "reduce_lft",
    "robust_stability",
    "series",
    "simulate",
    "star",
    "structured_norm",
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
