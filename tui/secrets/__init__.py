"""Keeping secrets: the one redaction, the crash log, and files only their user can read."""
