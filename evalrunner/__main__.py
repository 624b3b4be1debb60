"""python -m evalrunner"""

from .cli import main

main()
