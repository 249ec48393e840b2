"""Model description, builder, validation, file reading (TOML/JSON/YAML/URDF) and writing,
and the compiled ``Model``."""

from ..exceptions import TitopWarning
from .builder import System
from .compiled import Model
from .description import (
    Body,
    Buoyancy,
    Damping,
    Force,
    Free,
    Loop,
    Output,
    Parameter,
    Prismatic,
    Revolute,
    Spherical,
    Torque,
    Universal,
    Weld,
    WrenchInput,
)
from .files import URDFModel, load_model, read_description
from .writer import save_model

__all__ = [
    "Body",
    "Buoyancy",
    "Damping",
    "Force",
    "Free",
    "Loop",
    "Model",
    "Output",
    "Parameter",
    "Prismatic",
    "Revolute",
    "Spherical",
    "System",
    "TitopWarning",
    "Torque",
    "URDFModel",
    "Universal",
    "Weld",
    "WrenchInput",
    "load_model",
    "read_description",
    "save_model",
]
