"""Model description, builder, validation, file reading (TOML/JSON/YAML/URDF) and writing,
and the compiled ``Model``."""

from ..exceptions import TitopWarning
from .builder import System
from .compiled import Model
from .description import (
    Body,
    Buoyancy,
    Force,
    Free,
    Loop,
    Output,
    Parameter,
    Prismatic,
    Revolute,
    Torque,
    Weld,
    WrenchInput,
)
from .files import URDFModel, load_model, read_description
from .writer import save_model

__all__ = [
    "Body",
    "Buoyancy",
    "Force",
    "Free",
    "Loop",
    "Model",
    "Output",
    "Parameter",
    "Prismatic",
    "Revolute",
    "System",
    "TitopWarning",
    "Torque",
    "URDFModel",
    "Weld",
    "WrenchInput",
    "load_model",
    "read_description",
    "save_model",
]
