"""A faithful local server for the surveys and batch-exports interface (no Textual, no API client).

``start_sandbox`` runs it in-process; ``cli.run`` serves it in the foreground.
"""

from tui.sandbox.options import SandboxOptions

__all__ = ["SandboxOptions"]
