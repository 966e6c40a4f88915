"""Backends: where a kernel is built, run and timed."""

from tuner.backends.base import Artifact, Backend, Profile, RunResult
from tuner.backends.sim import SimBackend

__all__ = ["Artifact", "Backend", "Profile", "RunResult", "SimBackend"]
