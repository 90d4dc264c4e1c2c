"""Readers: existing files in other formats -> the model (the mirror of lmsexport.writers)."""
