"""The schema registry flags of the record commands (`messages read/produce`), over the
profile's schema_registry_* keys, and the RecordSchemas object they make."""

from __future__ import annotations

import argparse
import dataclasses
import os
from pathlib import Path
from typing import TYPE_CHECKING

from ..admin.model import Secret
from ..config import Profile
from ..fields import FieldError
from ..registry import RegistrySettings, SchemaError
from ..registry.settings import shown_url, url_problem
from ..secrets import SecretSource, terminal_asker
from ..services import parsing
from ..services.registry_access import profile_registry

if TYPE_CHECKING:
    from ..registry.codec import RecordSchemas


def add_registry_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "schema registry",
        "avro, protobuf and jsonschema records (Confluent's wire format); the profile's "
        "schema_registry_* keys serve when these are not given",
    )
    group.add_argument(
        "--schema-registry",
        metavar="URL",
        help="the registry's Confluent-compatible API, e.g. http://127.0.0.1:8081 "
        "(Apicurio: .../apis/ccompat/v7); default: the profile's schema_registry_url",
    )
    group.add_argument("--registry-user", metavar="USER", help="basic auth user")
    group.add_argument(
        "--registry-password-env",
        metavar="VAR",
        help="the environment variable holding --registry-user's password (none: asked on "
        "a terminal)",
    )
    group.add_argument(
        "--registry-token-env",
        metavar="VAR",
        help="the environment variable holding a bearer token (instead of a user)",
    )
    group.add_argument("--registry-ca-file", metavar="FILE", help="CA bundle to trust (PEM)")
    group.add_argument("--registry-cert-file", metavar="FILE", help="client certificate (PEM)")
    group.add_argument("--registry-key-file", metavar="FILE", help="the client certificate's key")
    group.add_argument(
        "--key-schema-file",
        type=Path,
        metavar="FILE",
        help="the keys' schema, .avsc, .proto or .json (JSON Schema): for topics without a "
        "registry, or to --register",
    )
    group.add_argument(
        "--value-schema-file",
        type=Path,
        metavar="FILE",
        help="the values' schema, .avsc, .proto or .json (JSON Schema): for topics without "
        "a registry, or to --register",
    )
    group.add_argument(
        "--proto-message",
        metavar="NAME",
        help="the Protobuf message to write (default: the schema's first): of the value's "
        ".proto file, or the key's when only it is .proto, else of the registry's schema",
    )
    group.add_argument(
        "--validate-json-schema",
        action="store_true",
        help="check jsonschema records against their JSON Schema (jsonschema)",
    )


def add_produce_registry_flags(parser: argparse.ArgumentParser) -> None:
    """The flags only `messages produce` has: the subjects written with, and registering."""
    group = parser.add_argument_group("schema registry subjects")
    for which in ("key", "value"):
        group.add_argument(
            f"--{which}-subject",
            metavar="SUBJECT",
            help=f"the subject the {which}s' schema is looked up or registered under "
            f"(default: TOPIC-{which})",
        )
    for which in ("key", "value"):
        group.add_argument(
            f"--{which}-schema-id",
            type=int,
            metavar="ID",
            help=f"write the {which} (--{which}) with the registry's schema of this id, not "
            f"its subject's latest",
        )
    group.add_argument(
        "--register",
        action="store_true",
        help="register --key-schema-file / --value-schema-file under their subjects before "
        "producing and print their schema ids (without it nothing is registered: the file's "
        "schema must be there already)",
    )


def registry_settings(args: argparse.Namespace, profile: Profile | None) -> RegistrySettings | None:
    """The registry the flags and the profile name: a flag over the profile's key. The
    profile's login and TLS files serve only its own URL (never sent to another one)."""
    from_profile = profile.schema_registry if profile is not None else None
    url = args.schema_registry or (from_profile.url if from_profile else None)
    if url is None:
        given = [f for f in _LOGIN_FLAGS if getattr(args, f.replace("-", "_")[2:], None)]
        if given:
            raise parsing.UsageError(f"{given[0]} needs --schema-registry URL")
        return None
    problem = url_problem(url)
    if problem:
        raise parsing.UsageError(f"--schema-registry {shown_url(url)} {problem}")
    base = (
        _with_secrets(profile)
        if from_profile is not None and profile is not None and from_profile.url == url
        else RegistrySettings(url)
    )
    if args.registry_token_env and args.registry_user:
        raise parsing.UsageError("give --registry-user or --registry-token-env, not both")
    changes: dict[str, object] = {}
    if args.registry_token_env:
        changes |= {"token": _env(args.registry_token_env, "--registry-token-env")}
        changes |= {"username": None, "password": None}
    if args.registry_user:
        password = (
            _env(args.registry_password_env, "--registry-password-env")
            if args.registry_password_env
            else _ask(args.registry_user, url)
        )
        changes |= {"username": args.registry_user, "password": password, "token": None}
    elif args.registry_password_env:
        raise parsing.UsageError("--registry-password-env needs --registry-user")
    for flag, name in (
        ("--registry-ca-file", "ca_file"),
        ("--registry-cert-file", "cert_file"),
        ("--registry-key-file", "key_file"),
    ):
        value = getattr(args, flag[2:].replace("-", "_"))
        if value is not None:
            path = Path(value).expanduser()
            if not path.is_file():
                raise parsing.UsageError(f"{flag}: {path} does not exist")
            changes[name] = str(path)
    settings = dataclasses.replace(base, **changes)  # type: ignore[arg-type]
    if settings.key_file and not settings.cert_file:
        raise parsing.UsageError("--registry-key-file needs --registry-cert-file")
    return settings


_LOGIN_FLAGS = (
    "--registry-user",
    "--registry-password-env",
    "--registry-token-env",
    "--registry-ca-file",
    "--registry-cert-file",
    "--registry-key-file",
)


def registry_from_args(args: argparse.Namespace, profile: Profile | None) -> RecordSchemas | None:
    """What decodes and encodes records with a schema: the registry and schema files the
    flags and profile name (None: neither)."""
    settings = registry_settings(args, profile)
    if settings is None and not (args.key_schema_file or args.value_schema_file):
        if args.proto_message:
            raise parsing.UsageError("--proto-message needs a .proto schema file or a registry")
        return None
    from ..registry.client import RegistryClient
    from ..registry.codec import LocalSchema, RecordSchemas

    key_file, value_file = args.key_schema_file, args.value_schema_file
    message_for = "value" if value_file and value_file.suffix == ".proto" else "key"
    try:
        key_schema = (
            LocalSchema.load(
                key_file,
                args.proto_message if message_for == "key" else None,
                validate_json=args.validate_json_schema,
            )
            if key_file
            else None
        )
        value_schema = (
            LocalSchema.load(
                value_file,
                args.proto_message if message_for == "value" else None,
                validate_json=args.validate_json_schema,
            )
            if value_file
            else None
        )
        client = RegistryClient(settings) if settings is not None else None
    except SchemaError as exc:
        raise parsing.UsageError(str(exc)) from None
    proto_file = any(s is not None and s.format == "protobuf" for s in (key_schema, value_schema))
    if args.proto_message and client is None and not proto_file:
        raise parsing.UsageError("--proto-message needs a .proto schema file or a registry")
    return RecordSchemas(
        client,
        key_schema=key_schema,
        value_schema=value_schema,
        validate_json=args.validate_json_schema,
        # without a .proto file: the message of the registry's schema that produce writes
        proto_message=None if proto_file else args.proto_message,
    )


def _env(variable: str, flag: str) -> Secret:
    value = os.environ.get(variable)
    if value is None:
        raise parsing.UsageError(f"{flag}: environment variable {variable} is not set")
    return Secret(value)


def _ask(user: str, url: str) -> Secret:
    ask = terminal_asker()
    where = f"schema registry {shown_url(url)}"
    if ask is None:
        raise parsing.UsageError(
            f"--registry-user {user} needs a password: --registry-password-env VAR, or run "
            "on a terminal to be asked"
        )
    answer = ask(SecretSource("schema_registry_password", "prompt", user, where))
    if not answer:
        raise parsing.UsageError(f"no password was given for {where}")
    return Secret(answer)


def _with_secrets(profile: Profile) -> RegistrySettings:
    """The profile's registry with its command and keyring secrets read (once per process)."""
    try:
        settings = profile_registry(profile)
    except FieldError as exc:
        raise parsing.UsageError(exc.message) from None
    assert settings is not None
    return settings
