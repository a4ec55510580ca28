"""A password in the base URL, a key_command's stderr and a malformed key: none reaches the screen or a log."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tui.cli.main import main
from tui.config.keys import KeySourceError, run_key_command
from tui.sandbox.runner import SandboxHandle
from tui.secrets.crashlog import record_exception
from tui.text.redaction import mask_url_password

PASSWORD = "s3cretPW"
PY = sys.executable


def with_password(base_url: str) -> str:
    return base_url.replace("http://", f"http://ops:{PASSWORD}@", 1)


def test_status_json_and_errors_mask_the_url_password(env: dict[str, str], sandbox: SandboxHandle,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["status", "--json", "--base-url", with_password(sandbox.base_url), "--project", sandbox.project_id],
                env={**env, "WATCHDECK_API_KEY": sandbox.api_key})
    out, err = capsys.readouterr()
    assert code == 2, err  # the URL's user:password goes out as Basic auth, which the sandbox refuses (401)
    assert json.loads(out)["base_url"] == sandbox.base_url.replace("http://", "http://ops:***@", 1)
    assert PASSWORD not in out + err


def test_a_config_error_masks_the_url_password(env: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["status", "--base-url", f"ftp://ops:{PASSWORD}@example.com", "--project", "1"],
                env={**env, "WATCHDECK_API_KEY": "phx_status_key"})
    err = capsys.readouterr().err
    assert code == 2
    assert "ftp://ops:***@example.com" in err and PASSWORD not in err


def test_the_crash_log_masks_url_passwords(env: dict[str, str]) -> None:
    path = record_exception(RuntimeError(f"GET https://ops:{PASSWORD}@proxy.example/api failed"), "test")
    assert path is not None
    text = path.read_text()
    assert "https://ops:***@proxy.example/api" in text and PASSWORD not in text


@pytest.mark.parametrize(("text", "masked"), [
    ("http://u:p@h:8000/x", "http://u:***@h:8000/x"),
    ("see https://:tok@h and http://h/x@y", "see https://:***@h and http://h/x@y"),
    ("https://u:p@ss@h/", "https://u:***@h/"),
    ("http://only-user@h/", "http://only-user@h/"),
])
def test_mask_url_password(text: str, masked: str) -> None:
    assert mask_url_password(text) == masked


def test_a_failing_key_command_says_only_its_exit_code() -> None:
    leaky = [PY, "-c", "import sys; sys.stderr.write('decrypted: phx_leaked_in_stderr\\n'); sys.exit(4)"]
    with pytest.raises(KeySourceError) as caught:
        run_key_command(leaky)
    message = str(caught.value)
    assert "failed (exit 4)" in message
    assert "phx_leaked" not in message and "decrypted" not in message


@pytest.mark.parametrize(("printed", "problem"), [
    ("phx_abc def", "contains spaces"),
    ("phx_abc\tdef", "contains whitespace ('\\t')"),
    ("phx_abc\x1b[2Jdef", "contains a control character (U+001B)"),
    ("phx_abcédef", "not ASCII"),
])
def test_a_malformed_key_is_named_before_anything_is_sent(env: dict[str, str], sandbox: SandboxHandle,
                                                          capsys: pytest.CaptureFixture[str],
                                                          printed: str, problem: str) -> None:
    config = Path(env["WATCHDECK_CONFIG_DIR"]) / "config.toml"
    config.parent.mkdir(parents=True)
    command = json.dumps([PY, "-c", f"print({printed!r})"])
    config.write_text(f'[profiles.p]\nbase_url = "{sandbox.base_url}"\nproject = "{sandbox.project_id}"\n'
                      f"key_command = {command}\n")
    before = len(sandbox.requests())
    assert main(["status"], env=env) == 2
    err = capsys.readouterr().err
    assert problem in err and "nothing was sent" in err and "401" not in err
    assert printed not in err
    assert len(sandbox.requests()) == before, "no request with a key that cannot be right"


def test_a_malformed_key_in_the_environment_is_named_too(env: dict[str, str],
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["status", "--base-url", "http://127.0.0.1:9", "--project", "1"],
                env={**env, "WATCHDECK_API_KEY": "phx_one two"}) == 2
    err = capsys.readouterr().err
    assert "the key from WATCHDECK_API_KEY contains spaces" in err and "phx_one" not in err
