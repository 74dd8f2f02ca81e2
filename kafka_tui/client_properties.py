"""kafka-topics.sh's `--command-config client.properties`: the Java client's security settings
read into a ConnectionSettings.

Only what an admin client needs is understood (security.protocol, sasl.*, ssl.*, client.id,
request.timeout.ms, bootstrap.servers); every other key is reported as ignored, never fatal.
Error messages name the file, line and key, and never a value: values of these files are
passwords more often than not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

from .admin.model import ConnectionSettings, SaslMechanism, SecurityProtocol
from .oauth_config import MSK_IAM, PROPERTIES_KEYS, OAuthConfigError


class PropertiesError(ValueError):
    """The file is unusable; the message says where and why, without any value."""


@dataclass(frozen=True)
class ClientProperties:
    """What a client.properties file sets: ConnectionSettings fields, and the keys ignored."""

    source: str
    overrides: dict[str, Any] = field(default_factory=dict, repr=False)
    bootstrap_servers: str | None = None
    ignored: tuple[str, ...] = ()

    def apply(self, connection: ConnectionSettings) -> ConnectionSettings:
        """The file's settings over the profile's (the command line names the file last)."""
        return ConnectionSettings(**{**connection.__dict__, **self.overrides})


_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}
_LINE_END = re.compile(r"\r\n|\r|\n")
_SPACE = " \t\f"  # Java's whitespace here; other Unicode spaces belong to keys and values


def parse_properties(text: str, where: str) -> dict[str, tuple[int, str]]:
    """Java's .properties format: `#`/`!` comments, `key=value`, `key: value` or `key value`,
    backslash line continuations and escapes. Returns key -> (line number, value)."""
    entries: dict[str, tuple[int, str]] = {}
    # Java ends lines at \n, \r and \r\n only (str.splitlines also splits at \f, \x85, ...)
    lines = _LINE_END.split(text)
    i = 0
    while i < len(lines):
        number = i + 1
        logical = lines[i].lstrip(_SPACE)
        i += 1
        if not logical or logical[0] in "#!":
            continue
        while _continues(logical) and i < len(lines):
            logical = logical[:-1] + lines[i].lstrip(_SPACE)
            i += 1
        if _continues(logical):
            logical = logical[:-1]
        key, value = _split(logical)
        key = _unescape(key, where, number)
        if not key:
            raise PropertiesError(f"{where}:{number}: a line with a value but no key")
        entries[key] = (number, _unescape(value, where, number))
    return entries


def _continues(line: str) -> bool:
    trailing = len(line) - len(line.rstrip("\\"))
    return trailing % 2 == 1


def _split(line: str) -> tuple[str, str]:
    i = 0
    while i < len(line):
        char = line[i]
        if char == "\\":
            i += 2
            continue
        if char in "=:" or char in _SPACE:
            key, rest = line[:i], line[i:].lstrip(_SPACE)
            if char in _SPACE and rest[:1] in ("=", ":"):
                rest = rest[1:].lstrip(_SPACE)
            elif char not in _SPACE:
                rest = line[i + 1 :].lstrip(_SPACE)
            return key, rest
        i += 1
    return line, ""


def _unescape(text: str, where: str, number: int) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char != "\\":
            out.append(char)
            i += 1
            continue
        nxt = text[i + 1 : i + 2]
        if nxt == "u":
            digits = text[i + 2 : i + 6]
            if not re.fullmatch(r"[0-9a-fA-F]{4}", digits):
                raise PropertiesError(f"{where}:{number}: a malformed \\uXXXX escape")
            out.append(chr(int(digits, 16)))
            i += 6
            continue
        out.append(_ESCAPES.get(nxt, nxt))
        i += 2
    try:
        # Java strings are UTF-16: \ud83d\ude00 is one character, a lone half is no text
        return "".join(out).encode("utf-16", "surrogatepass").decode("utf-16")
    except UnicodeDecodeError:
        raise PropertiesError(
            f"{where}:{number}: a \\uXXXX escape is half of a surrogate pair"
        ) from None


# -- JAAS --------------------------------------------------------------------------------------

_LOGIN_MODULES = {
    "org.apache.kafka.common.security.scram.ScramLoginModule": "SCRAM",
    "org.apache.kafka.common.security.plain.PlainLoginModule": "PLAIN",
    "com.sun.security.auth.module.Krb5LoginModule": "GSSAPI",
    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule": "OAUTHBEARER",
    "software.amazon.msk.auth.iam.IAMLoginModule": "AWS_MSK_IAM",
}
_JAAS = re.compile(
    r"\s*(?P<module>[\w.$]+)\s+(?P<flag>required|requisite|sufficient|optional)"
    r"(?P<options>.*?)\s*;\s*$",
    re.DOTALL,
)
_OPTION = re.compile(r'\s*([\w.-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s";]+))', re.DOTALL)


def parse_jaas(text: str, where: str) -> tuple[str, dict[str, str]]:
    """`sasl.jaas.config`: one login module with its options -> (kind, options)."""
    match = _JAAS.fullmatch(text)
    if match is None:
        raise PropertiesError(
            f'{where} is not `LoginModule required username="..." '
            'password="...";` (one login module, ending with a semicolon)'
        )
    module = match["module"]
    kind = _LOGIN_MODULES.get(module)
    if kind is None:
        # a password whose quotes went missing lands here: name only a class of that form
        named = f"the login module {module}" if module.endswith("LoginModule") else "a login module"
        raise PropertiesError(
            f"{where} names {named} that kafka-tui does not support; it supports "
            "ScramLoginModule, PlainLoginModule, Krb5LoginModule, OAuthBearerLoginModule and "
            "AWS's IAMLoginModule"
        )
    options: dict[str, str] = {}
    rest = match["options"]
    position = 0
    while rest[position:].strip():
        option = _OPTION.match(rest, position)
        if option is None:
            raise PropertiesError(
                f'{where} has a malformed option after the login module (expected name="value")'
            )
        quoted = option[2]
        value = re.sub(r"\\(.)", r"\1", quoted) if quoted is not None else option[3]
        options[option[1]] = value
        position = option.end()
    # password= may be left out: the profile's source gives it, or kafka-tui asks (secrets.py)
    if kind in ("SCRAM", "PLAIN") and "username" not in options:
        raise PropertiesError(f"{where} has no username=")
    return kind, options


def _kerberos(options: dict[str, str], where: str) -> dict[str, Any]:
    """Krb5LoginModule's options as Kafka's Java client takes them: a keytab
    (useKeyTab=true keyTab="..." principal="...") or a ticket cache (useTicketCache=true,
    ticketCache="..." or the default one); serviceName= names the brokers' service."""

    def flag(name: str) -> bool:
        value = options.get(name, "false").lower()
        if value not in ("true", "false"):
            raise PropertiesError(f"{where}: {name}= must be true or false")
        return value == "true"

    settings: dict[str, Any] = {}
    if flag("useKeyTab"):
        keytab = options.get("keyTab")
        if not keytab:
            raise PropertiesError(f'{where}: useKeyTab=true needs keyTab="/path/to/file.keytab"')
        if not Path(keytab).expanduser().is_file():
            raise PropertiesError(f"{where}: keyTab= file {keytab} does not exist")
        settings["sasl_kerberos_keytab"] = str(Path(keytab).expanduser())
    elif flag("useTicketCache"):
        settings["sasl_kerberos_ccache"] = options.get("ticketCache")
    else:
        raise PropertiesError(
            f'{where}: Krb5LoginModule needs useKeyTab=true with keyTab="..." and principal="...", '
            "or useTicketCache=true (a ticket from kinit)"
        )
    if "principal" in options:
        settings["sasl_kerberos_principal"] = options["principal"]
    if "serviceName" in options:
        settings["sasl_kerberos_service_name"] = options["serviceName"]
    return settings


# -- the file ----------------------------------------------------------------------------------

_HANDLED = {
    "security.protocol",
    "sasl.mechanism",
    "sasl.jaas.config",
    "sasl.kerberos.service.name",
    "ssl.truststore.location",
    "ssl.truststore.type",
    "ssl.truststore.password",
    "ssl.truststore.certificates",
    "ssl.keystore.location",
    "ssl.keystore.type",
    "ssl.keystore.password",
    "ssl.keystore.key",
    "ssl.keystore.certificate.chain",
    "ssl.key.password",
    "ssl.endpoint.identification.algorithm",
    "client.id",
    "request.timeout.ms",
    "bootstrap.servers",
    *PROPERTIES_KEYS,
}


def read_client_properties(path: Path) -> ClientProperties:
    """Read and check a client.properties file; PropertiesError says what is wrong."""
    where = str(path)
    try:
        text = path.expanduser().read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PropertiesError(f"command config {where} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise PropertiesError(f"command config {where} cannot be read: {reason}") from None
    except (RuntimeError, ValueError):  # ~unknown-user, or a NUL byte in the path
        raise PropertiesError(f"command config {where} is not a usable path") from None
    return client_properties(parse_properties(text, where), where)


def client_properties(entries: dict[str, tuple[int, str]], where: str) -> ClientProperties:
    from . import client_stores  # it loads cryptography only when a file names a store

    values = {key: value for key, (_, value) in entries.items()}

    def at(key: str) -> str:
        return f"{where}:{entries[key][0]}: {key}"

    def choice(key: str, allowed: tuple[str, ...], why: str = "") -> str | None:
        value = values.get(key)
        if value is None:
            return None
        value = value.strip().upper()
        if value not in allowed:
            raise PropertiesError(f"{at(key)} must be one of {', '.join(allowed)}{why}")
        return value

    overrides: dict[str, Any] = {}
    protocol = choice("security.protocol", get_args(SecurityProtocol))
    if protocol is not None:
        overrides["security_protocol"] = protocol
    mechanism = choice(
        "sasl.mechanism",
        (*get_args(SaslMechanism), MSK_IAM),
        " (kafka-tui speaks SASL/PLAIN, SASL/SCRAM, SASL/GSSAPI, OAUTHBEARER and AWS_MSK_IAM)",
    )
    if mechanism is not None:
        overrides["sasl_mechanism"] = "OAUTHBEARER" if mechanism == MSK_IAM else mechanism
    if mechanism in ("OAUTHBEARER", MSK_IAM):
        from .oauth_config import from_properties

        kind, options = (
            parse_jaas(values["sasl.jaas.config"], at("sasl.jaas.config"))
            if "sasl.jaas.config" in values
            else (None, {})
        )
        if kind not in (None, "OAUTHBEARER", MSK_IAM):
            raise PropertiesError(
                f"{at('sasl.jaas.config')}: the {kind} login module does not match "
                f"sasl.mechanism={mechanism}; use OAuthBearerLoginModule or IAMLoginModule"
            )
        try:
            overrides["sasl_oauth"] = from_properties(values, at, where, kind or mechanism, options)
        except OAuthConfigError as exc:
            raise PropertiesError(str(exc)) from None
    elif "sasl.jaas.config" in values:
        kind, options = parse_jaas(values["sasl.jaas.config"], at("sasl.jaas.config"))
        chosen = mechanism or (kind if kind in ("PLAIN", "GSSAPI") else None)
        if chosen is None or not chosen.startswith(kind):
            raise PropertiesError(
                f"{at('sasl.jaas.config')}: the {kind} login module does not match "
                f"sasl.mechanism={mechanism or 'GSSAPI (Kafka default)'}; set sasl.mechanism"
            )
        if kind == "GSSAPI":
            overrides |= {"sasl_mechanism": chosen, **_kerberos(options, at("sasl.jaas.config"))}
        else:
            overrides |= {"sasl_mechanism": chosen, "sasl_username": options["username"]}
            if "password" in options:
                overrides["sasl_password"] = options["password"]
    elif (protocol or "").startswith("SASL") and mechanism != "GSSAPI":
        raise PropertiesError(
            f"{where}: security.protocol={protocol} needs sasl.jaas.config with a username and "
            "password"
        )
    if "sasl.kerberos.service.name" in values:
        overrides["sasl_kerberos_service_name"] = values["sasl.kerberos.service.name"].strip()
    try:
        overrides |= client_stores.tls_settings(values, at)
    except client_stores.StoreError as exc:
        raise PropertiesError(str(exc)) from None
    algorithm = values.get("ssl.endpoint.identification.algorithm")
    if algorithm is not None:
        if algorithm.strip().lower() not in ("", "https"):
            raise PropertiesError(
                f"{at('ssl.endpoint.identification.algorithm')} must be https (check the "
                "broker's host name, the default) or empty (do not)"
            )
        overrides["ssl_check_hostname"] = algorithm.strip() != ""
    if "client.id" in values:
        overrides["client_id"] = values["client.id"]
    if "request.timeout.ms" in values:
        timeout = values["request.timeout.ms"].strip()
        if not (timeout.isascii() and timeout.isdigit()) or int(timeout) <= 0:
            raise PropertiesError(f"{at('request.timeout.ms')} must be a positive integer")
        overrides["request_timeout_ms"] = int(timeout)
    ignored = tuple(sorted(k for k in values if k not in _HANDLED))
    servers = values.get("bootstrap.servers", "").strip() or None
    return ClientProperties(where, overrides, servers, ignored)
