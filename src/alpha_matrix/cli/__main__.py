"""python -m alpha_matrix.cli"""

import sys

from alpha_matrix.cli import main

sys.exit(main())
