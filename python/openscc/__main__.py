"""python3 -m openscc: the same as the `openscc` command."""
import sys

from .cli import main

sys.exit(main())
