"""Keeping secrets: the crash log (key blanked) and files only their user can read."""
