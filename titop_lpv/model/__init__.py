"""Model description, builder, validation, file loading and the compiled ``Model``."""

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
from .files import load_model, read_description

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
    "Weld",
    "WrenchInput",
    "load_model",
    "read_description",
]
