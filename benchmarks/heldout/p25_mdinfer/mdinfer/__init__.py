"""Inference split across NPUs: embedding on one, head on another, a decode library's streams."""
