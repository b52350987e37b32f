"""Backends, loaded by name (plugserve.engine.load_provider)."""
