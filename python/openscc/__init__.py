"""OpenSCC's Python tools: reports and plots of job directories written by
`rccerun --trace` and `rccerun --model` (docs/monitoring.md)."""

__version__ = "0.1.0"

# What openscc says when one of its dependencies (pyproject.toml) is not installed.
MISSING_PACKAGE = ("Python package {name} is missing: install matplotlib, jinja2 and jsonschema "
                   "(scripts/install-deps.sh, or pip install ./python)")
