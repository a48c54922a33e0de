"""The package version (one place; read by pyproject.toml and recorded in benchmark configs)."""

__version__ = "0.2.0"
