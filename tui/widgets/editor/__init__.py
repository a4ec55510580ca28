"""The survey editor's forms, in one package because no other screen uses them (see :mod:`tui.screens.editor`)."""
