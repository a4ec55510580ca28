"""The one redaction (:mod:`tui.text.redaction`), unit by unit: what it masks, and what it leaves as it is."""

from __future__ import annotations

from tui.text.redaction import MASK, is_secret_key, mask_secrets, mask_url_password, redact, redact_within

KEY = "phs_sandbox_0123456789abcdef"


def test_a_known_secret_is_masked_wherever_it_stands() -> None:
    assert redact(f"key={KEY}; again {KEY}.", [KEY]) == f"key={MASK}; again {MASK}."
    assert redact("nothing to hide", [KEY]) == "nothing to hide"


def test_a_secret_shorter_than_four_characters_is_not_a_secret() -> None:
    """Masking ``ab`` would blank every ``ab`` of a message; three characters are too few to mean a key."""
    assert redact("a cab and a tab", ["ab"]) == "a cab and a tab"
    assert redact("a cab and a tab", ["abc"]) == "a cab and a tab"
    assert redact("the code abcd", ["abcd"]) == f"the code {MASK}"
    assert redact("empty", [""]) == "empty"


def test_a_bearer_token_is_masked_in_any_letter_case() -> None:
    assert redact("Authorization: Bearer abc.def-123") == f"Authorization: Bearer {MASK}"
    assert redact("authorization: bearer xyz") == f"authorization: bearer {MASK}"
    assert redact("BEARER   tok en") == f"BEARER   {MASK} en", "the token is the word after it"


def test_a_url_password_is_masked_and_the_user_kept() -> None:
    assert mask_url_password("https://ops:s3cr%40t@proxy.example/api") == f"https://ops:{MASK}@proxy.example/api"
    assert redact("via http://u:p@h:8080/x and https://h/y") == f"via http://u:{MASK}@h:8080/x and https://h/y"
    assert mask_url_password("https://proxy.example/a:b@c") == "https://proxy.example/a:b@c", "a path is no password"
    assert mask_url_password("mail me: a@b.c") == "mail me: a@b.c"


def test_secret_looking_keys_in_any_case() -> None:
    for key in ("password", "PASSWORD", "Password", "aws_secret_access_key", "AWS_SECRET_ACCESS_KEY", "token",
                "private_key", "api_key", "user", "client_email", "authorization", "my_client_secret",
                "db_credentials", "REFRESH_TOKEN"):
        assert is_secret_key(key), key
    for key in ("bucket_name", "region", "host", "port", "table_name", "prefix", "exclude_events"):
        assert not is_secret_key(key), key


def test_a_destination_config_is_masked_inside_lists_and_nested_objects() -> None:
    config = {
        "bucket_name": "data", "AWS_SECRET_ACCESS_KEY": "sk", "password": "",
        "hosts": [{"host": "db1", "password": "p1"}, {"host": "db2", "Token": "t2"}],
        "nested": {"inner": {"private_key": "-----BEGIN"}, "region": "eu"},
        "keys": ["plain", {"api_key": "k"}], "user": None,
    }
    assert mask_secrets(config) == {
        "bucket_name": "data", "AWS_SECRET_ACCESS_KEY": MASK, "password": "",
        "hosts": [{"host": "db1", "password": MASK}, {"host": "db2", "Token": MASK}],
        "nested": {"inner": {"private_key": MASK}, "region": "eu"},
        "keys": ["plain", {"api_key": MASK}], "user": None,
    }
    assert config["hosts"][0]["password"] == "p1", "a copy: the config itself is kept"


def test_a_payload_is_redacted_in_every_string_and_keeps_its_shape() -> None:
    payload = {"summary": f"failed with {KEY}", "count": 3, "runs": [f"Bearer {KEY}", {"error": KEY}], "ok": True}
    assert redact_within(payload, [KEY]) == {
        "summary": f"failed with {MASK}", "count": 3, "runs": [f"Bearer {MASK}", {"error": MASK}], "ok": True,
    }
    assert redact_within("http://a:b@c", []) == f"http://a:{MASK}@c"
