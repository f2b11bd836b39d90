"""Entry script of the PyInstaller bundle: the same ``main`` as the ``parley`` console script."""

import sys

from app.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
