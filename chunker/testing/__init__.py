"""Test support shipped with the package: the deterministic scripted chat model."""

from chunker.testing.scripted import ScriptedChatModel, ScriptedTransientError

__all__ = ["ScriptedChatModel", "ScriptedTransientError"]
