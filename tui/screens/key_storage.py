"""Where a pasted API key is kept, asked when a new profile is saved, so the next start is not a dead end.

A key pasted into the form and kept nowhere lasts for the session only, and the
next launch exits with "no API key". The operator chooses: the OS keyring (when
one works), the profile in config.toml (a 0600 file; only after an explicit
choice, since a key in a file is the weakest place), or nowhere, in which case
the dialog shows the ``key_command`` line to add for a password manager.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static

from tui.config import profile_block
from tui.look.render import plain
from tui.screens.dialog import Dialog

STORE_KEYRING = "keyring"
STORE_FILE = "file"
STORE_NOWHERE = "nowhere"


def key_command_hint(profile: str, path: Path | None) -> str:
    """The lines to add to config.toml so that a password manager gives the key at the next start."""
    where = f" in {path}" if path else ""
    block = profile_block(profile, {"key_command": f"pass show watchdeck/{profile}"}).strip()
    return f"To give the key from a password manager, add to [profiles.{profile}]{where}:\n\n{block.splitlines()[-1]}"


def confirm_id(keyring: bool) -> str:
    """The confirming button: the keyring where one works, else this session only (a file is chosen by name)."""
    return "keystore-keyring" if keyring else "keystore-nowhere"


class KeyStorageScreen(Dialog[str | None]):
    """Dismisses with where to keep the key (``STORE_*``), or None when the operator goes back to the form.

    It confirms as every dialog does: ``y`` or Enter on the confirming button (the keyring where one works,
    else this session only; the file, the weakest place, only by its own key or button), Escape goes back.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("k", "choose('keyring')", "Keyring", id="keystore.keyring"),
        Binding("f", "choose('file')", "File", id="keystore.file"),
        Binding("s", "choose('nowhere')", "Session only", id="keystore.nowhere"),
    ]

    def __init__(self, profile: str, path: Path | None, *, keyring: bool, keyring_failed: bool = False) -> None:
        super().__init__(classes="key-storage-modal")
        self._profile = profile
        self._path = path
        self._keyring = keyring and not keyring_failed
        self._keyring_failed = keyring_failed

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="key-storage-dialog"):
            yield Static(Text("Keep the API key?", style="bold"), classes="dialog-title")
            lead = ("The keyring refused the key. " if self._keyring_failed else "") + (
                "Without a stored key the next start stops with \"no API key\". Where should it be kept?")
            yield Static(Text(lead), id="key-storage-lead")
            if self._keyring:
                yield Static(Text.assemble(("k  ", "bold"), "in the OS keyring (recommended)"))
            where = str(self._path) if self._path else "config.toml"
            yield Static(Text.assemble(("f  ", "bold"), "in the profile, in ", plain(where),
                                       " (readable by you only: mode 0600)"))
            yield Static(Text.assemble(("s  ", "bold"), "nowhere: this session only"))
            yield Static(plain(key_command_hint(self._profile, self._path), oneline=False), id="key-storage-hint")
            with Horizontal(classes="dialog-buttons"):
                if self._keyring:
                    yield Button("Keep in keyring (y/k)", id="keystore-keyring", compact=True, variant="primary")
                yield Button("Keep in file (f)", id="keystore-file", compact=True)
                yield Button("This session only " + ("(s)" if self._keyring else "(y/s)"), id="keystore-nowhere",
                             compact=True, variant="default" if self._keyring else "primary")

    @property
    def confirm_button(self) -> Button | None:
        return next(iter(self.query(f"#{confirm_id(self._keyring)}").results(Button)), None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss((event.button.id or "").removeprefix("keystore-"))

    def action_choose(self, choice: str) -> None:
        if choice == STORE_KEYRING and not self._keyring:
            return
        self.dismiss(choice)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "choose" and parameters == ("keyring",) and not self._keyring:
            return False  # no keyring that works: its key is neither shown nor taken
        return super().check_action(action, parameters)

    def action_cancel(self) -> None:
        self.dismiss(None)
