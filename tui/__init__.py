"""watchdeck: a terminal dashboard for surveys and batch exports."""

__version__ = "0.1.0"
