"""`python -m app …` is `vpu-inspector …` (handy from a source checkout)."""
import sys

from app.cli import main

sys.exit(main())
