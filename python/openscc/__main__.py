"""python3 -m openscc: the same as the `openscc` command."""
import sys

from . import MISSING_PACKAGE

try:
    from .cli import main
except ModuleNotFoundError as e:  # the package's dependencies (pyproject.toml)
    sys.exit("openscc: " + MISSING_PACKAGE.format(name=e.name))

sys.exit(main())
