"""Cluster profiles from a TOML file, validated strictly; secrets never sit in it (secrets.py).

A bad file is a ConfigError whose message names the file, the profile and the key, so the
CLI can print one line and exit 2. Secret values are never stored in the file, never logged.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_args

from .admin.model import (
    DEFAULT_TIMEOUT_MS,
    ConnectionSettings,
    SaslMechanism,
    Secret,
    SecurityProtocol,
)
from .admin.validation import topic_name_problem
from .oauth_config import MSK_IAM
from .oauth_config import PROFILE_KEYS as OAUTH_PROFILE_KEYS
from .paths import user_path
from .registry.settings import RegistrySettings, url_problem
from .secrets import (
    SOURCE_SUFFIXES,
    Asker,
    SecretError,
    SecretSource,
    profile_sources,
    resolve,
    source_keys,
)

if TYPE_CHECKING:
    from .client_properties import ClientProperties


class ConfigError(Exception):
    """The config file or the command line's connection options are unusable."""


@dataclass(frozen=True)
class Profile:
    name: str
    connection: ConnectionSettings
    zookeeper_connect: str | None = None
    read_only: bool = False
    # KIP-409: "disabled" | "enabled" | "enabled_prefer_observed"; placement "client" | "broker".
    under_replicated: str = "disabled"
    placement: str = "client"
    placeholders_topic: str = "__kafka_tui_placeholders"
    # Keys of a client.properties file (command_config) that kafka-tui does not use.
    ignored_properties: tuple[str, ...] = ()
    # Where the audit log goes ($KAFKA_TUI_AUDIT_LOG wins; default: the XDG state folder).
    audit_log: str | None = None
    # Spark settings for plan jobs (the profile's [spark] table), e.g.
    # (("spark.executor.memory", "4g"),); --spark-conf KEY=VALUE overrides them.
    spark: tuple[tuple[str, str], ...] = ()
    # Seconds a load kafka-tui counted may serve a later create or grow (0: every one reads
    # the cluster; see services/recent_load.py); the command line's own value overrides it.
    load_max_age: float = 0.0
    # Secrets read only when this profile connects (secrets.py): its command and keyring
    # sources, and where a missing one is named ("config.toml: profile 'prod'").
    secrets: tuple[SecretSource, ...] = ()
    secrets_at: str = ""
    # The schema registry of the cluster's records (schema_registry_* keys), its password or
    # token from `_env` already; `_command` / `_keyring` sources are read only when used.
    schema_registry: RegistrySettings | None = None
    schema_registry_secrets: tuple[SecretSource, ...] = ()

    @property
    def secrets_where(self) -> str:
        return self.secrets_at or f"profile '{self.name}'"


@dataclass(frozen=True)
class Settings:
    profiles: dict[str, Profile]
    default_profile: str | None = None
    key_bindings: dict[str, str] = field(default_factory=dict)
    source: Path | None = None


_PROFILE_KEYS: dict[str, type | tuple[type, ...]] = {
    "bootstrap_servers": (str, list),
    "client_id": str,
    "request_timeout_ms": int,
    "security_protocol": str,
    "sasl_mechanism": str,
    "sasl_username": str,
    "sasl_password_env": str,
    "ssl_cafile": str,
    "ssl_certfile": str,
    "ssl_keyfile": str,
    "ssl_password_env": str,
    "ssl_check_hostname": bool,
    "sasl_kerberos_service_name": str,
    "sasl_kerberos_principal": str,
    "sasl_kerberos_keytab": str,
    "sasl_kerberos_ccache": str,
    "krb5_config": str,
    "zookeeper_connect": str,
    "read_only": bool,
    "under_replicated": str,
    "placement": str,
    "placeholders_topic": str,
    "audit_log": str,
    "command_config": str,
    "spark": dict,
    "load_max_age": (int, float),
    **OAUTH_PROFILE_KEYS,
}
# Each secret `<name>_env` may instead be `<name>_command` or `<name>_keyring` (secrets.py).
_PROFILE_KEYS |= source_keys(list(_PROFILE_KEYS))
# The schema registry of the records (kafka_tui/registry): basic auth or a bearer token.
REGISTRY_SECRETS = ("schema_registry_password", "schema_registry_token")
REGISTRY_FILES = (
    "schema_registry_ca_file",
    "schema_registry_cert_file",
    "schema_registry_key_file",
)
_PROFILE_KEYS |= {
    "schema_registry_url": str,
    "schema_registry_username": str,
    **{f"{secret}{suffix}": str for secret in REGISTRY_SECRETS for suffix in SOURCE_SUFFIXES},
    **dict.fromkeys(REGISTRY_FILES, str),
}
# The placer's MODES (planning/placement.py), which config does not import (a test pins them).
UNDER_REPLICATED_MODES = ("disabled", "enabled", "enabled_prefer_observed")
_TOP_KEYS = {"default_profile", "profiles", "keys"}


def seconds_problem(value: float) -> str | None:
    """A number of seconds as kafka-tui takes one (a profile's load_max_age, the command
    line's): finite, 0 or more. What is wrong with `value`, worded to follow its name."""
    return None if 0 <= value < float("inf") else "must be a number of seconds, 0 or more"


def default_config_path() -> Path:
    return user_path("KAFKA_TUI_CONFIG", "XDG_CONFIG_HOME", ".config", "config.toml")


def load_settings(path: Path | None, *, required: bool = False) -> Settings:
    """Read `path` (or the default location). A missing default file means no profiles."""
    target = path or default_config_path()
    if not target.exists():
        if required or path is not None:
            raise ConfigError(f"config file {target} does not exist")
        return Settings(profiles={})
    import tomllib  # only when there is a file: a script without one starts ~1.5 ms sooner

    try:
        data = tomllib.loads(target.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{target}: not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{target}: not valid TOML: arrays or tables nested too deeply") from None
    except OSError as exc:
        raise ConfigError(f"{target}: cannot be read: {exc.strerror}") from None
    return parse_settings(data, target)


def parse_settings(data: dict[str, Any], source: Path | None = None) -> Settings:
    where = str(source) if source else "config"
    unknown = set(data) - _TOP_KEYS
    if unknown:
        raise ConfigError(
            f"{where}: unknown top-level key(s) {sorted(unknown)}; expected {sorted(_TOP_KEYS)}"
        )
    raw_profiles = data.get("profiles", {})
    if not isinstance(raw_profiles, dict):
        raise ConfigError(f"{where}: [profiles] must be a table of profiles")
    profiles = {name: _parse_profile(name, body, where) for name, body in raw_profiles.items()}
    default = data.get("default_profile")
    if default is not None and (not isinstance(default, str) or default not in profiles):
        raise ConfigError(
            f"{where}: default_profile '{default}' is not one of the profiles {sorted(profiles)}"
        )
    keys = _flatten(data.get("keys", {}))
    if keys is None:
        raise ConfigError(f'{where}: [keys] maps binding ids to keys, e.g. topics.refresh = "f5"')
    return Settings(profiles, default, keys, source)


def _flatten(table: object, prefix: str = "") -> dict[str, str] | None:
    """TOML reads `topics.refresh = "f5"` as nested tables; binding ids are dotted strings."""
    if not isinstance(table, dict):
        return None
    flat: dict[str, str] = {}
    for key, value in table.items():
        if isinstance(value, str):
            flat[prefix + key] = value
        elif (inner := _flatten(value, f"{prefix}{key}.")) is not None:
            flat |= inner
        else:
            return None
    return flat


def _parse_profile(name: str, body: object, where: str) -> Profile:
    at = f"{where}: profile '{name}'"
    if not isinstance(body, dict):
        raise ConfigError(f"{at} must be a table")
    unknown = set(body) - set(_PROFILE_KEYS)
    if unknown:
        raise ConfigError(f"{at}: unknown key(s) {sorted(unknown)}; known: {sorted(_PROFILE_KEYS)}")
    for key, expected in _PROFILE_KEYS.items():
        # bool is an int to Python, not to TOML: `request_timeout_ms = true` is a mistake
        wrong_bool = isinstance(body.get(key), bool) and expected in (int, (int, float))
        if key in body and (wrong_bool or not isinstance(body[key], expected)):
            kind = expected.__name__ if isinstance(expected, type) else "string or list"
            kind = "number" if expected == (int, float) else kind
            kind = "table" if expected is dict else kind
            raise ConfigError(f"{at}: '{key}' must be a {kind}")
    servers = body.get("bootstrap_servers")
    if not servers:
        raise ConfigError(f"{at}: 'bootstrap_servers' is required")
    if isinstance(servers, list):
        if not all(isinstance(s, str) and s.strip() for s in servers):
            raise ConfigError(f"{at}: 'bootstrap_servers' must list \"host:port\" strings")
        servers = ",".join(servers)
    protocol = body.get("security_protocol", "PLAINTEXT")
    if protocol not in get_args(SecurityProtocol):
        raise ConfigError(
            f"{at}: security_protocol must be one of {list(get_args(SecurityProtocol))}"
        )
    mechanism = body.get("sasl_mechanism")
    if mechanism is not None and mechanism not in (*get_args(SaslMechanism), MSK_IAM):
        known = [*get_args(SaslMechanism), MSK_IAM]
        raise ConfigError(f"{at}: sasl_mechanism must be one of {known}")
    oauth = _oauth(body, mechanism, protocol, at)
    if (
        oauth is None
        and protocol.startswith("SASL")
        and mechanism != "GSSAPI"
        and not body.get("sasl_username")
        and not body.get("command_config")
    ):
        raise ConfigError(f"{at}: {protocol} needs 'sasl_username' and 'sasl_password_env'")
    timeout = body.get("request_timeout_ms", DEFAULT_TIMEOUT_MS)
    if timeout <= 0:
        raise ConfigError(f"{at}: request_timeout_ms must be positive")
    sources = _sources(body, at)  # before the environment is read: two sources is the mistake
    connection = ConnectionSettings(
        bootstrap_servers=servers,
        client_id=body.get("client_id", "kafka-tui"),
        request_timeout_ms=timeout,
        security_protocol=protocol,
        sasl_mechanism="OAUTHBEARER"
        if oauth is not None
        else mechanism or ("PLAIN" if protocol.startswith("SASL") else None),
        sasl_username=body.get("sasl_username"),
        sasl_password=_secret(body, "sasl_password_env", at),
        ssl_cafile=_existing_file(body, "ssl_cafile", at),
        ssl_certfile=_existing_file(body, "ssl_certfile", at),
        ssl_keyfile=_existing_file(body, "ssl_keyfile", at),
        ssl_password=_secret(body, "ssl_password_env", at),
        ssl_check_hostname=body.get("ssl_check_hostname", True),
        **_kerberos_settings(body, at),
        sasl_oauth=oauth,
    )
    mode = body.get("under_replicated", "disabled")
    if mode not in UNDER_REPLICATED_MODES:
        raise ConfigError(f"{at}: under_replicated must be one of {list(UNDER_REPLICATED_MODES)}")
    placement = body.get("placement", "client")
    if placement not in ("client", "broker"):
        raise ConfigError(f"{at}: placement must be 'client' or 'broker'")
    if placement == "broker" and mode != "disabled":
        raise ConfigError(
            f"{at}: placement = 'broker' leaves placement to Kafka and works only with "
            "under_replicated = 'disabled'"
        )
    load_max_age = float(body.get("load_max_age", 0))  # a number: checked with the types above
    problem = seconds_problem(load_max_age)
    if problem:
        raise ConfigError(f"{at}: load_max_age {problem}")
    problem = topic_name_problem(body.get("placeholders_topic", "__kafka_tui_placeholders"))
    if problem:
        raise ConfigError(f"{at}: placeholders_topic: {problem}")
    schema_registry, schema_registry_secrets = _schema_registry(body, at)
    profile = Profile(
        name,
        connection,
        body.get("zookeeper_connect"),
        body.get("read_only", False),
        mode,
        placement,
        body.get("placeholders_topic", "__kafka_tui_placeholders"),
        audit_log=str(_expanded(body, "audit_log", at)) if "audit_log" in body else None,
        spark=_spark_settings(body.get("spark", {}), at),
        load_max_age=load_max_age,
        secrets=sources,
        secrets_at=at,
        schema_registry=schema_registry,
        schema_registry_secrets=schema_registry_secrets,
    )
    if "command_config" in body:
        profile = with_command_config(profile, Path(body["command_config"]), at)
    return profile


def _schema_registry(
    body: dict[str, Any], at: str
) -> tuple[RegistrySettings | None, tuple[SecretSource, ...]]:
    """A profile's schema registry (schema_registry_url and its login and TLS keys)."""
    given = sorted(k for k in body if k.startswith("schema_registry_"))
    url = body.get("schema_registry_url")
    if url is None:
        if given:
            raise ConfigError(f"{at}: {given[0]} needs schema_registry_url")
        return None, ()
    problem = url_problem(url)
    if problem:
        raise ConfigError(f"{at}: schema_registry_url {problem}")
    sources: list[SecretSource] = []
    values: dict[str, str | None] = {}
    for secret in REGISTRY_SECRETS:
        named = [secret + suffix for suffix in SOURCE_SUFFIXES if secret + suffix in body]
        if len(named) > 1:
            raise ConfigError(f"{at}: give one source for {secret}, not {' and '.join(named)}")
        value = _secret(body, f"{secret}_env", at)
        values[secret] = Secret(value) if value is not None else None
        if named and not named[0].endswith("_env"):
            kind = named[0].removeprefix(secret + "_")
            try:  # the same checks as the connection's own command and keyring sources
                profile_sources({f"sasl_password_{kind}": body[named[0]]}, at)
            except SecretError as exc:
                raise ConfigError(str(exc).replace("sasl_password", secret)) from None
            sources.append(SecretSource(secret, kind, body[named[0]], at))
    has_password = values["schema_registry_password"] is not None or any(
        s.setting == "schema_registry_password" for s in sources
    )
    has_token = values["schema_registry_token"] is not None or any(
        s.setting == "schema_registry_token" for s in sources
    )
    username = body.get("schema_registry_username")
    if has_token and (username is not None or has_password):
        raise ConfigError(
            f"{at}: the schema registry takes a bearer token or a username and password, not both"
        )
    if has_password != (username is not None):
        raise ConfigError(
            f"{at}: schema_registry_username and a schema_registry_password source "
            "(_env, _command or _keyring) go together"
        )
    if "schema_registry_key_file" in body and "schema_registry_cert_file" not in body:
        raise ConfigError(f"{at}: schema_registry_key_file needs schema_registry_cert_file")
    files = {key: _existing_file(body, key, at) for key in REGISTRY_FILES}
    settings = RegistrySettings(
        url,
        username=username,
        password=values["schema_registry_password"],
        token=values["schema_registry_token"],
        ca_file=files["schema_registry_ca_file"],
        cert_file=files["schema_registry_cert_file"],
        key_file=files["schema_registry_key_file"],
    )
    return settings, tuple(sources)


def _spark_settings(table: dict[str, Any], at: str) -> tuple[tuple[str, str], ...]:
    """A `[profiles.NAME.spark]` table: Spark settings, every value a string (TOML reads
    `spark.executor.memory = "4g"` as nested tables: the keys are dotted back)."""
    flat = _flatten(table)
    if flat is None:
        wrong = _first_non_string(table)
        raise ConfigError(
            f"{at}: [spark] values must be strings, as Spark reads them: "
            f'{wrong} (write it in quotes, e.g. spark.executor.cores = "2")'
        )
    return tuple(sorted(flat.items()))


def _first_non_string(table: dict[str, Any], prefix: str = "") -> str:
    for key, value in table.items():
        if isinstance(value, dict):
            found = _first_non_string(value, f"{prefix}{key}.")
            if found:
                return found
        elif not isinstance(value, str):
            return f"{prefix}{key} = {value!r}"
    return ""


def with_command_config(profile: Profile, path: Path, at: str = "") -> Profile:
    """`profile` with a kafka-topics.sh client.properties file's settings over its own."""
    properties = read_command_config(path, at)
    try:
        return with_properties(profile, properties)
    except ConfigError as exc:
        raise ConfigError(f"{at}: {exc}" if at else str(exc)) from None


def read_command_config(path: Path, at: str = "") -> ClientProperties:
    from .client_properties import PropertiesError, read_client_properties

    try:
        return read_client_properties(path)
    except PropertiesError as exc:
        raise ConfigError(f"{at}: {exc}" if at else str(exc)) from None


def with_properties(profile: Profile, properties: ClientProperties) -> Profile:
    connection = properties.apply(profile.connection)
    if (
        connection.security_protocol.startswith("SASL")
        and connection.sasl_mechanism != "GSSAPI"
        and not connection.sasl_username
        and connection.sasl_oauth is None
    ):
        raise ConfigError(
            f"{properties.source}: security.protocol={connection.security_protocol} needs "
            "sasl.jaas.config with a username and password"
        )
    profile = replace(profile, connection=connection, ignored_properties=properties.ignored)
    if "sasl_username" in properties.overrides and "sasl_password" not in properties.overrides:
        # the file's login has no password=: the profile's source gives it, or it is asked
        where = f"{properties.source} (sasl.jaas.config has no password=)"
        return replace(profile, secrets_at=where)
    return profile


def with_secrets(profile: Profile, ask: Asker | None) -> Profile:
    """`profile` with every secret it needs to connect: from its command and keyring sources
    (read now, once per process), else from `ask` (None, off a terminal: a ConfigError)."""
    try:
        connection = resolve(profile.connection, profile.secrets, profile.secrets_where, ask)
    except SecretError as exc:
        raise ConfigError(str(exc)) from None
    return replace(profile, connection=connection, secrets=())


def _sources(body: dict[str, Any], at: str) -> tuple[SecretSource, ...]:
    try:
        return profile_sources(body, at)
    except SecretError as exc:
        raise ConfigError(str(exc)) from None


def _kerberos_settings(body: dict[str, Any], at: str) -> dict[str, Any]:
    """A profile's Kerberos keys (sasl_mechanism = "GSSAPI"); files must exist."""
    settings: dict[str, Any] = {
        key: body[key]
        for key in ("sasl_kerberos_service_name", "sasl_kerberos_principal", "sasl_kerberos_ccache")
        if key in body
    }
    for key in ("sasl_kerberos_keytab", "krb5_config"):
        if key in body:
            settings[key] = _existing_file(body, key, at)
    if settings and body.get("sasl_mechanism") != "GSSAPI":
        raise ConfigError(f'{at}: {sorted(settings)[0]} needs sasl_mechanism = "GSSAPI"')
    return settings


def _oauth(body: dict[str, Any], mechanism: str | None, protocol: str, at: str) -> Any:
    """A profile's OAUTHBEARER / AWS_MSK_IAM settings (oauth_config.py), else None."""
    from .oauth_config import OAuthConfigError, from_profile

    given = sorted(k for k in OAUTH_PROFILE_KEYS if k in body)
    if mechanism not in ("OAUTHBEARER", MSK_IAM):
        if given:
            raise ConfigError(f"{at}: {given[0]} needs sasl_mechanism = 'OAUTHBEARER'")
        return None
    if not protocol.startswith("SASL"):
        raise ConfigError(f"{at}: sasl_mechanism {mechanism} needs security_protocol SASL_SSL")
    try:
        return from_profile(body, mechanism, at, lambda key: _secret(body, key, at))
    except OAuthConfigError as exc:
        raise ConfigError(str(exc)) from None


def _secret(body: dict[str, Any], key: str, at: str) -> str | None:
    variable = body.get(key)
    if variable is None:
        return None
    value = os.environ.get(variable)
    if value is None:
        raise ConfigError(f"{at}: environment variable {variable} (named by '{key}') is not set")
    return value


def _existing_file(body: dict[str, Any], key: str, at: str) -> str | None:
    value = body.get(key)
    if value is None:
        return None
    path = _expanded(body, key, at)
    if not path.is_file():
        raise ConfigError(f"{at}: '{key}' file {path} does not exist")
    return str(path)


def _expanded(body: dict[str, Any], key: str, at: str) -> Path:
    try:
        return Path(body[key]).expanduser()
    except RuntimeError:  # ~name of a user this system does not know
        raise ConfigError(f"{at}: '{key}' starts with an unknown user's ~: {body[key]}") from None
