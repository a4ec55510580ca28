"""How things look: the palette, the one door for server text (render), run-status looks, and the
monitor's cell and detail texts.
"""
