"""python3 -m openscc: the same as the `openscc` command."""
import sys

try:
    from .cli import main
except ModuleNotFoundError as e:  # the package's dependencies (pyproject.toml)
    sys.exit(f"openscc: Python package {e.name} is missing: install matplotlib, jinja2 and jsonschema "
             "(scripts/install-deps.sh, or pip install ./python)")

sys.exit(main())
