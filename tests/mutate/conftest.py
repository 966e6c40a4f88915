"""Fixtures for tests that talk to an LLM: a scripted OpenAI-compatible server, and an environment aimed at it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .llm_server import ScriptedServer

SCRIPTED_MODEL = "scripted-model"


@pytest.fixture
def llm_server() -> Iterator[ScriptedServer]:
    """A running scripted server with an empty script; push actions, read `requests`."""
    with ScriptedServer() as server:
        yield server


@pytest.fixture
def llm_env(llm_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch) -> ScriptedServer:
    """The environment a user of a local server has: TUNER_LLM_MODEL and OPENAI_BASE_URL set, no API key."""
    monkeypatch.setenv("TUNER_LLM_MODEL", SCRIPTED_MODEL)
    monkeypatch.setenv("OPENAI_BASE_URL", llm_server.url)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return llm_server
