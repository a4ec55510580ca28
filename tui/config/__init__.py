"""Settings: what to connect to, what to watch, how often.

One job per module, each importing only those above it in this list:

- :mod:`tui.config.errors`: ``ConfigError`` and the environment lookup, a leaf.
- :mod:`tui.config.models`: the validated ``Settings``, ``Profile`` and
  ``ConfigFile``, the URL rules and ``split_ids``; reads nothing.
- :mod:`tui.config.file`: ``config.toml`` on disk: its path, parsing with
  errors that name the line, the permission warning, and saving a profile
  with tomlkit (comments kept).
- :mod:`tui.config.remembered`: the project last picked per profile, in the
  state dir.
- :mod:`tui.config.keys`: where the API key comes from (the environment, a
  profile's ``key_command`` or ``key``, the OS keyring).
- :mod:`tui.config.resolve`: ``Overrides``, ``choose_profile``,
  ``resolve_settings`` (flags > environment > profile > defaults) and
  ``NeedsSetup``.

The directories come from :mod:`tui.config.paths` and nowhere else.
"""

from tui.config.errors import ConfigError as ConfigError
from tui.config.errors import env_default as env_default
from tui.config.file import config_path as config_path
from tui.config.file import load_config as load_config
from tui.config.file import parse_config as parse_config
from tui.config.file import permission_warning as permission_warning
from tui.config.file import profile_block as profile_block
from tui.config.file import save_profile as save_profile
from tui.config.models import DEFAULT_POLL_SECONDS as DEFAULT_POLL_SECONDS
from tui.config.models import MIN_POLL_SECONDS as MIN_POLL_SECONDS
from tui.config.models import PRESET_BASE_URLS as PRESET_BASE_URLS
from tui.config.models import PROFILE_NAME_RE as PROFILE_NAME_RE
from tui.config.models import ConfigFile as ConfigFile
from tui.config.models import InsecureUrl as InsecureUrl
from tui.config.models import Profile as Profile
from tui.config.models import Settings as Settings
from tui.config.models import check_base_url as check_base_url
from tui.config.models import check_cache_url as check_cache_url
from tui.config.models import insecure_message as insecure_message
from tui.config.models import is_insecure_url as is_insecure_url
from tui.config.models import is_loopback_url as is_loopback_url
from tui.config.models import split_ids as split_ids
from tui.config.remembered import remember_project as remember_project
from tui.config.remembered import remembered_project as remembered_project
from tui.config.resolve import NeedsSetup as NeedsSetup
from tui.config.resolve import Overrides as Overrides
from tui.config.resolve import resolve_settings as resolve_settings
