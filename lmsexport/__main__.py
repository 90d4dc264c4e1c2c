"""`python -m lmsexport` runs the command line."""

from .cli import run

run()
