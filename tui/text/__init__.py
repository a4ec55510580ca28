"""Text below every layer: cleaning untrusted text (clean), the one redaction (redaction), and how durations,
times and counts are written (words). State, looks, widgets and the command line all use these; nothing here
imports another part of watchdeck.
"""
