"""Protobuf records as dynamic messages: the registry's .proto text (and the files it imports)
compiled by grpcio-tools' protoc into a FileDescriptorSet, loaded into a descriptor pool of
its own, and read or written with protobuf's json_format."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .errors import SchemaError

# The file a registry schema is written to for protoc; its references keep their own names
# (the import paths in its text).
MAIN_FILE = "kafka_tui_registry_schema.proto"
PROTOC_TIMEOUT_S = 60.0


def compile_proto(
    text: str, imports: Mapping[str, str], *, main_file: str = MAIN_FILE, where: str = ""
) -> bytes:
    """A serialized FileDescriptorSet of `text` and everything it imports (`imports`: import
    path -> .proto text; Google's well-known types come with protoc)."""
    with tempfile.TemporaryDirectory(prefix="kafka-tui-proto-") as work:
        root = Path(work) / "src"
        for name, source in {**imports, main_file: text}.items():
            path = root / name
            if not path.resolve().is_relative_to(root.resolve()):
                raise SchemaError(f"the Protobuf import path {name!r}{where} leaves its folder")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(source, encoding="utf-8")
        return _protoc(root, main_file, Path(work) / "set.pb", where)


def compile_proto_file(path: Path) -> bytes:
    """A serialized FileDescriptorSet of a local .proto file; its imports are found beside it."""
    with tempfile.TemporaryDirectory(prefix="kafka-tui-proto-") as work:
        return _protoc(path.parent, path.name, Path(work) / "set.pb", f" {path}")


def _protoc(include: Path, main_file: str, out: Path, where: str) -> bytes:
    import grpc_tools

    bundled = Path(grpc_tools.__file__).parent / "_proto"
    try:
        # protoc in a process of its own: its errors go to its stderr, which we word
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "grpc_tools.protoc",
                f"-I{include}",
                f"-I{bundled}",
                "--include_imports",
                f"--descriptor_set_out={out}",
                main_file,
            ],
            cwd=include,
            capture_output=True,
            text=True,
            timeout=PROTOC_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SchemaError(f"protoc could not be run{where} ({type(exc).__name__})") from None
    if done.returncode != 0:
        said = " ".join(done.stderr.replace(f"{include}/", "").split())[:300]
        raise SchemaError(f"the Protobuf schema{where} does not compile: {said}")
    return out.read_bytes()


class ProtobufSchema:
    """One compiled .proto file; messages are picked by the wire format's message indexes
    or by name."""

    format = "protobuf"

    def __init__(self, descriptor_set: bytes, main_file: str = MAIN_FILE) -> None:
        from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory

        self._json_format = json_format
        self._factory = message_factory
        files = descriptor_pb2.FileDescriptorSet.FromString(descriptor_set)
        self.pool = descriptor_pool.DescriptorPool()
        main = None
        for proto in files.file:  # --include_imports: each file after those it imports
            self.pool.Add(proto)
            if proto.name == main_file:
                main = proto
        if main is None or not main.message_type:
            raise SchemaError("the Protobuf schema defines no message")
        self.package = main.package
        self._top = [m for m in main.message_type]
        self._classes: dict[tuple[int, ...], Any] = {}

    def message_name(self, indexes: tuple[int, ...]) -> str:
        """The full name of the message at `indexes` (first the top-level message, then its
        nested ones)."""
        level = self._top
        names = [self.package] if self.package else []
        for depth, index in enumerate(indexes):
            if index >= len(level):
                raise SchemaError(
                    f"the message indexes {list(indexes)} name no message of the schema "
                    f"(level {depth} has {len(level)})"
                )
            names.append(level[index].name)
            level = list(level[index].nested_type)
        return ".".join(names)

    def indexes(self, name: str | None) -> tuple[int, ...]:
        """The message indexes of message `name` (full or relative to the file's package;
        None: the first message)."""
        if name is None:
            return (0,)
        wanted = name.removeprefix(".")
        prefix = f"{self.package}." if self.package else ""
        wanted = wanted.removeprefix(prefix)
        path: list[int] = []
        level = self._top
        for part in wanted.split("."):
            found = next((i for i, m in enumerate(level) if m.name == part), None)
            if found is None:
                known = ", ".join(prefix + m.name for m in self._top)
                raise SchemaError(f"the Protobuf schema has no message {name!r} (it has {known})")
            path.append(found)
            level = list(level[found].nested_type)
        return tuple(path)

    def _class(self, indexes: tuple[int, ...]) -> Any:
        cls = self._classes.get(indexes)
        if cls is None:
            descriptor = self.pool.FindMessageTypeByName(self.message_name(indexes))
            cls = self._classes[indexes] = self._factory.GetMessageClass(descriptor)
        return cls

    def decode(self, payload: bytes | memoryview, indexes: tuple[int, ...] = (0,)) -> Any:
        from google.protobuf.message import DecodeError

        message = self._class(indexes)()
        try:
            message.ParseFromString(bytes(payload))
        except DecodeError as exc:
            name = self.message_name(indexes)
            raise SchemaError(f"the bytes are not a Protobuf {name}: {exc}") from None
        return self._json_format.MessageToDict(
            message,
            preserving_proto_field_name=True,
            always_print_fields_with_no_presence=True,
        )

    def encode(self, value: Any, indexes: tuple[int, ...] = (0,)) -> bytes:
        message = self._class(indexes)()
        try:
            self._json_format.ParseDict(value, message)
        except (self._json_format.ParseError, TypeError, ValueError) as exc:
            name = self.message_name(indexes)
            said = " ".join(str(exc).split())[:200]
            raise SchemaError(f"the value does not fit Protobuf message {name}: {said}") from None
        return bytes(message.SerializeToString())
