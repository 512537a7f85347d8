"""irw's version (pyproject.toml's), which `irw --version` and export manifests print."""
__version__ = "0.1.0"
