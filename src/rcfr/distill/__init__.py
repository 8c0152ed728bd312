"""Interpretable strategies (Bertsimas & Paskov 2021): a solved strategy distilled into small
per-round models (:func:`distill`), their readable rules, and the exact exploitability of the
distilled policy beside the original's."""

from .distill import Distilled, Part, default_distill_features, distill, sweep
from .models import MODELS, make_model

__all__ = ["MODELS", "Distilled", "Part", "default_distill_features", "distill", "make_model",
           "sweep"]
