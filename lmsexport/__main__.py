"""`python -m lmsexport` runs the command line."""

from .cli import main

main()
