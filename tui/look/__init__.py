"""How things look: the palette, server text as plain Text (render), run-status looks, the status line, and the
monitor's cell and detail texts.
"""
