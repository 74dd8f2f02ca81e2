"""`kafka-tui messages read TOPIC` and `kafka-tui messages produce TOPIC` (services/messages.py).

read: no consumer group is joined and nothing committed unless `--group G`. `--output jsonl`
streams one record object per line, `json` prints a list, `table` one line per record.
produce: one result per record, `{"topic", "partition", "offset", "timestamp", "error",
"message"}`; with --register, each schema file registered is said on stderr with its id.
Exit 0 when every record was read and decoded (or written), 1 when some record could not be
decoded as asked or Kafka refused one, 2 on usage errors.
"""

from __future__ import annotations

import argparse
import gc
import io
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..admin import AdminError, KafkaAdmin
from ..admin.records import Acks, Start, Stop
from ..config import Profile
from ..fields import FieldError
from ..services.parsing import UsageError
from .record_lines import (
    Printer,
    format_flags,
    interruptible,
    isolation_flag,
    not_negative,
    time_flag,
)
from .registry_flags import add_produce_registry_flags, add_registry_flags, registry_from_args

if TYPE_CHECKING:
    from ..registry.codec import RecordSchemas

_COMPRESSIONS = ("none", "gzip", "snappy", "lz4", "zstd")


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "messages", help="read, follow, filter, search and produce records"
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    read = actions.add_parser(
        "read",
        help="read records (no group joined, nothing committed unless --group)",
        description="Read records. Starts at the beginning (with --follow alone: at the end); "
        "stops at each partition's end as it was when the read started, unless --follow.",
    )
    read.add_argument("topic", metavar="TOPIC")
    read.add_argument(
        "--partition", type=int, action="append", metavar="P", help="repeatable; default all"
    )
    start = read.add_mutually_exclusive_group()
    start.add_argument("--offset", type=int, metavar="N", help="start at offset N")
    start.add_argument("--from-beginning", action="store_true", help="start at the log start")
    start.add_argument(
        "--from-time",
        metavar="ISO-8601",
        help="start at the first record at or after this time (UTC unless it names a zone; "
        "or ms since the epoch)",
    )
    start.add_argument("--last", type=int, metavar="N", help="the last N records per partition")
    read.add_argument("--limit", type=int, metavar="N", help="stop after N records")
    read.add_argument(
        "--until-time", metavar="ISO-8601", help="stop at the first record newer than this"
    )
    read.add_argument("--follow", action="store_true", help="wait for new records (ctrl+c ends)")
    isolation_flag(read)
    read.add_argument(
        "--filter",
        metavar="EXPR",
        help="a jq expression on the record object; records for which it yields false or "
        "null (or fails) are left out, e.g. '.value.amount > 100'",
    )
    format_flags(read)
    read.add_argument("--group", metavar="G", help="commit the offsets read to group G")
    add_registry_flags(read)

    produce = actions.add_parser("produce", help="write records (idempotent with acks=all)")
    produce.add_argument("topic", metavar="TOPIC")
    produce.add_argument("--key", metavar="TEXT")
    produce.add_argument("--value", metavar="TEXT", help="omitted: a tombstone (null value)")
    produce.add_argument(
        "--header", action="append", default=[], metavar="NAME=VALUE", help="repeatable"
    )
    produce.add_argument("--partition", type=int, metavar="P")
    produce.add_argument(
        "--timestamp", metavar="ISO-8601", help="the record's CreateTime (or ms since the epoch)"
    )
    produce.add_argument(
        "--file",
        type=Path,
        metavar="F",
        help="record objects, one per line (what `messages read --output jsonl` prints; - "
        "for stdin); their partitions and timestamps are kept unless --partition, "
        "--timestamp, --repartition or --new-timestamps",
    )
    produce.add_argument(
        "--repartition", action="store_true", help="--file: Kafka's partitioner chooses"
    )
    produce.add_argument(
        "--new-timestamps", action="store_true", help="--file: the producer's clock"
    )
    produce.add_argument("--acks", choices=["all", "-1", "1", "0"], default="all")
    produce.add_argument("--compression", choices=_COMPRESSIONS, default="none")
    format_flags(produce)
    add_registry_flags(produce)
    add_produce_registry_flags(produce)

    from . import message_search  # issue 51 point 4: its parser only

    message_search.add_parser(actions)


def read_request(args: argparse.Namespace) -> Any:
    from ..services.messages import ReadRequest

    for flag in ("offset", "last", "limit"):
        not_negative(f"--{flag}", getattr(args, flag))
    for p in args.partition or ():
        not_negative("--partition", p)
    follow_tail = args.follow and not (
        args.from_beginning or args.offset is not None or args.from_time or args.last
    )
    start = Start(
        offset=args.offset,
        timestamp=time_flag("--from-time", args.from_time),
        last=args.last,
        end=follow_tail,
    )
    stop = Stop(
        limit=args.limit,
        until_timestamp=time_flag("--until-time", args.until_time),
        follow=args.follow,
    )
    return ReadRequest(
        args.topic,
        tuple(args.partition or ()),
        start,
        stop,
        args.isolation,
        args.key_format,
        args.value_format,
        args.filter,
        args.group,
    )


async def run(args: argparse.Namespace, profile: Profile, admin: KafkaAdmin) -> int:
    if args.action == "search":
        from . import message_search

        return await message_search.run(args, profile, admin)
    if args.action == "produce" and profile.read_only:
        raise AdminError(
            "READ_ONLY_PROFILE",
            f"Profile '{profile.name}' is read-only: producing records is refused. Use "
            "another profile.",
        )
    schemas = registry_from_args(args, profile)
    try:
        if args.action == "read":
            return await interruptible(_read(args, admin, schemas))
        return await _produce(args, admin, schemas)
    finally:
        if schemas is not None:
            schemas.close()


async def _read(args: argparse.Namespace, admin: KafkaAdmin, schemas: RecordSchemas | None) -> int:
    from ..services.messages import open_read

    read = await open_read(admin, read_request(args), schemas)
    out = Printer(args.output)
    # A bulk read allocates a few objects per record and frees them a batch later: Python's
    # young-generation collection every 700 allocations scans them for nothing. 10-20% of a
    # 300,000-record read's CPU (bench/records.py).
    thresholds = gc.get_threshold()
    gc.set_threshold(100_000, 50, 100)
    try:
        async with read:
            if args.output == "table":
                async for documents in read.documents():
                    out.write(documents)
            else:
                async for lines in read.lines():
                    out.write_lines(lines)
    finally:
        gc.set_threshold(*thresholds)
        out.close()
    return 1 if read.undecodable else 0


async def _produce(
    args: argparse.Namespace, admin: KafkaAdmin, schemas: RecordSchemas | None
) -> int:
    from ..services import messages

    not_negative("--partition", args.partition)
    timestamp = time_flag("--timestamp", args.timestamp)
    if args.register:
        _register(args, schemas)
    if args.file is not None:
        if args.key is not None or args.value is not None:
            raise UsageError("--file: give the records in the file, or --key/--value, not both")
        if args.key_schema_id is not None or args.value_schema_id is not None:
            raise UsageError(
                "--file: each record object names its own schema_id; --key-schema-id and "
                "--value-schema-id are for --key/--value"
            )
        chunks = _file_chunks(args, messages, schemas)
        overrides = messages.Overrides(
            args.partition, timestamp, tuple(messages.record_headers(args.header))
        )
    else:
        overrides = None
        records = [
            messages.record_from_values(
                args.key,
                args.value,
                headers=args.header,
                partition=args.partition,
                timestamp=timestamp,
                key_format=args.key_format,
                value_format=args.value_format,
                schemas=schemas,
                topic=args.topic,
                key_subject=args.key_subject,
                value_subject=args.value_subject,
                key_schema_id=args.key_schema_id,
                value_schema_id=args.value_schema_id,
            )
        ]
        chunks = [messages.columns_of(records)]
    acks: Acks = "all" if args.acks == "-1" else args.acks
    compression = None if args.compression == "none" else args.compression
    failed = 0
    results: list[Any] = []
    stream = args.output == "jsonl"
    lines: list[str] = []
    async for outcomes in messages.produce_chunks(
        admin, args.topic, chunks, acks=acks, compression=compression, overrides=overrides
    ):
        failed += outcomes.failed
        if stream:
            lines += outcomes.json_lines()
            if len(lines) >= 10_000:
                sys.stdout.write("".join(lines))
                sys.stdout.flush()
                lines.clear()
        elif args.output == "json":
            results += [o.to_json() for o in outcomes]
        else:
            for o in outcomes:
                if o.error:
                    print(f"Error ({o.error}): record {o.index + 1}: {o.message}", file=sys.stderr)
                else:
                    results.append(o)
    if args.output == "json":
        from .output import emit_json

        emit_json(results)
    elif stream:
        sys.stdout.write("".join(lines))
    else:
        _produce_table(args.topic, results)
    return 1 if failed else 0


def _register(args: argparse.Namespace, schemas: RecordSchemas | None) -> None:
    """--register: the schema files registered under their subjects, each id said on stderr
    (stdout keeps the records' results)."""
    from ..services.registry_access import register_schema_files

    if not (args.key_schema_file or args.value_schema_file):
        raise UsageError("--register needs --key-schema-file or --value-schema-file")
    if schemas is None or schemas.client is None:
        raise UsageError("--register needs a schema registry (--schema-registry URL)")
    try:
        done = register_schema_files(
            schemas, args.topic, {"key": args.key_subject, "value": args.value_subject}
        )
    except FieldError as exc:
        raise UsageError(exc.message) from None
    for r in done:
        print(
            f"The {r.which} schema is registered under subject '{r.subject}': schema id "
            f"{r.schema_id}.",
            file=sys.stderr,
        )


def _produce_table(topic: str, results: list[Any]) -> None:
    if len(results) == 1:
        r = results[0]
        print(f"Record written to '{topic}' partition {r.partition} at offset {r.offset}.")
        return
    lines = ["PARTITION\tOFFSET"] + [f"{r.partition}\t{r.offset}" for r in results]
    sys.stdout.write("\n".join(lines) + "\n")


def _file_chunks(args: argparse.Namespace, messages: Any, schemas: RecordSchemas | None) -> Any:
    path: Path = args.file
    given = {
        "keep_partitions": not args.repartition,
        "keep_timestamps": not args.new_timestamps,
        "schemas": schemas,
        "topic": args.topic,
        "key_subject": args.key_subject,
        "value_subject": args.value_subject,
    }
    if str(path) == "-":  # not UTF-8: refused with its line number, as in a file
        stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="surrogateescape")
        return [messages.columns_of(messages.records_from_file(path, stdin, **given))]
    from ..services.record_file import record_chunks

    try:
        return record_chunks(path, **given)
    except OSError as exc:
        raise UsageError(f"--file: cannot read {path}: {exc.strerror}") from None
