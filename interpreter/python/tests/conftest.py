"""Shared fixtures: the repository root (games are loaded from its games/ folder)."""

import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def _in_repository_root(monkeypatch):
    """Tests name games as `games/NAME` or `NAME`, from the repository root."""
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("RULEBOOK_GAMES", raising=False)
    yield
    os.chdir(ROOT)
