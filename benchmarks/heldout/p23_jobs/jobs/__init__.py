"""Async job system running kernels on lanes built from configuration."""
