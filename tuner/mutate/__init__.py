"""Structural rewrites of kernel templates: an LLM (any OpenAI-compatible endpoint) or a catalog of rules
proposes a new template; nothing joins a run before it is screened, compiled and checked like any candidate."""
