"""The language of GPU-engineering skills: taxonomy, job-description parsing, track scores.

Pure Python: no Flask and no database, so workers and scripts can use it alone.
"""
from .taxonomy import TRACKS, Skill, Taxonomy, load_taxonomy

__all__ = ["TRACKS", "Skill", "Taxonomy", "load_taxonomy"]
