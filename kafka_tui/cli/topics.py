"""`kafka-tui cluster ...` and `kafka-tui topics ...`: the admin layer from a shell."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from ..admin import (
    AdminError,
    ConfigChange,
    ConfigOp,
    KafkaAdmin,
    NewPartitions,
    ReadOnlyProfile,
    TopicDescription,
    TopicResult,
    TopicSpec,
)
from ..admin import (
    audit_log as audit,
)
from ..admin.model import DEFAULT_TIMEOUT_MS
from ..admin.placeholders import PlaceholderStore
from ..config import UNDER_REPLICATED_MODES, Profile, seconds_problem
from ..fields import FieldError
from ..services import parsing
from ..services.config_units import with_unit
from ..services.records import current_entries, delete_topics, stored_placeholders
from . import output, reassign_flags
from .words import field_error_text, worded

if TYPE_CHECKING:
    from ..services.consumers import Readers
    from ..services.group_offsets import GroupOffsetsDeleted
    from ..services.keys import KeyMapping
    from ..services.placing import PlacementOptions
    from ..services.recent_load import LoadReuse

# The placer (services/placing.py, planning/) is imported only by the commands that place:
# a deletion, a listing or a describe is spared its ~15 ms of imports.


def add_parsers(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cluster = commands.add_parser("cluster", help="the cluster: id, controller, brokers")
    cluster_actions = cluster.add_subparsers(dest="action", required=True, metavar="ACTION")
    cluster_actions.add_parser("describe", help="cluster id, controller, brokers and racks")

    topics = commands.add_parser("topics", help="list, describe, create, alter, delete topics")
    actions = topics.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="topic names")
    listing.add_argument("--exclude-internal", action="store_true")
    listing.epilog = (
        "Reads the whole cluster's metadata (every topic, one request): its cost grows with "
        "the cluster, as kafka-topics.sh --list's does."
    )

    describe = actions.add_parser("describe", help="partitions, leaders, replicas, ISR, configs")
    describe.add_argument("topics", nargs="*", metavar="TOPIC", help="default: every topic")
    _topic_regex_flag(describe)
    describe.add_argument("--exclude-internal", action="store_true")
    for flag in (
        "--under-replicated-partitions",
        "--under-min-isr-partitions",
        "--at-min-isr-partitions",
        "--unavailable-partitions",
        "--topics-with-overrides",
    ):
        describe.add_argument(flag, action="store_true")
    describe.add_argument(
        "--no-configs",
        action="store_true",
        help="read no configs (configs are read for named topics and --topics-with-overrides; "
        "the min-ISR filters read min.insync.replicas only)",
    )
    describe.epilog = (
        "Prints as it reads, 500 topics a request: every topic means reading the whole "
        "cluster's metadata. --output jsonl: one JSON object per topic per line."
    )

    create = actions.add_parser("create", help="create topics (a batch; each gets its result)")
    create.add_argument("topics", nargs="+", metavar="TOPIC")
    create.add_argument("--partitions", type=int, help="default: the broker's num.partitions")
    create.add_argument(
        "--replication-factor", type=int, help="default: the broker's default.replication.factor"
    )
    create.add_argument("--replica-assignment", help="e.g. 1:2:3,2:3:1 (first = preferred leader)")
    create.add_argument("--config", action="append", default=[], metavar="KEY=VALUE")
    create.add_argument("--if-not-exists", action="store_true")
    _change_flags(create)
    _kip409_flags(create)

    alter = actions.add_parser(
        "alter", help="increase the partition count (KIP-195) or change the replication factor"
    )
    alter.add_argument("topics", nargs="*", metavar="TOPIC")
    _topic_regex_flag(alter)
    alter.add_argument("--if-exists", action="store_true", help="no error when nothing matches")
    alter.add_argument("--partitions", type=int, help="the new total")
    alter.add_argument("--replica-assignment", help="for the NEW partitions only, e.g. 3:1,1:2")
    alter.add_argument("--replication-factor", type=int, help="the new replication factor")
    alter.add_argument(
        "--yes",
        action="store_true",
        help="do not ask for confirmation (growing a compacted topic asks first on a terminal)",
    )
    _change_flags(alter)
    _kip409_flags(alter)
    reassign_flags.add_run_flags(alter)

    moving = reassign_flags.add_topics_reassign(actions)
    _topic_regex_flag(moving)
    _kip409_flags(moving)

    delete = actions.add_parser("delete", help="delete topics (asks first on a terminal)")
    delete.add_argument("topics", nargs="*", metavar="TOPIC")
    _topic_regex_flag(delete)
    delete.add_argument("--if-exists", action="store_true")
    delete.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    delete.add_argument(
        "--if-unconsumed",
        action="store_true",
        help="delete only topics that no group with members reads (classic and KIP-848 "
        "consumer groups, share and streams groups) and no live producer writes to "
        "(DescribeProducers, Kafka 2.8+); the others are refused (TOPIC_IN_USE)",
    )
    delete.add_argument(
        "--delete-group-offsets",
        action="store_true",
        help="first delete every group's committed offsets on the topics (OffsetDelete), so a "
        "re-created topic does not start them at old offsets; their other topics keep theirs",
    )
    delete.add_argument("--timeout-ms", type=int, default=DEFAULT_TIMEOUT_MS)

    configs = actions.add_parser("configs", help="show, set or delete a topic's config overrides")
    configs.add_argument("topics", nargs=1, metavar="TOPIC")
    configs.add_argument("--add-config", metavar="K=V,...", help="e.g. retention.ms=1000")
    configs.add_argument("--delete-config", metavar="K,...")
    configs.add_argument("--validate-only", action="store_true")

    from . import topic_keys  # issue 51: its parser only; the reading loads when it runs

    topic_keys.add_parser(actions)


def _kip409_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--under-replicated",
        choices=UNDER_REPLICATED_MODES,
        help="KIP-409: create even while brokers are down (default: the profile's, else "
        "disabled: every replica on a live broker)",
    )
    parser.add_argument(
        "--min-required-replication-factor",
        type=int,
        metavar="N",
        help="KIP-409: replicas that must be on live brokers (implies enabled)",
    )
    parser.add_argument(
        "--placement",
        choices=["client", "broker"],
        help="client: kafka-tui's placer (default; what is previewed is sent), which balances "
        "against every broker's load and so reads every partition of the cluster (one Metadata "
        "request: its cost grows with the cluster; see --load-max-age); broker: Kafka places, "
        "nothing is read (disabled mode only)",
    )
    parser.add_argument(
        "--load-max-age",
        type=_seconds,
        metavar="SECONDS",
        help="client placement: balance against the load a kafka-tui command counted from "
        "every partition at most this long ago (600 at most: kafka-tui's journal of its own "
        "changes remembers 10 minutes), plus kafka-tui's own creates and grows since, "
        "instead of reading every partition again (a script's loop of creates on a big "
        "cluster). Not seen: other tools' changes and reassignments within that time. "
        "Default: the profile's load_max_age, else 0 (read every time)",
    )


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    problem = seconds_problem(value)
    if problem:
        raise argparse.ArgumentTypeError(f"{text!r} {problem}")
    return value


def load_reuse(args: argparse.Namespace, profile: Profile, admin: KafkaAdmin) -> LoadReuse | None:
    """--load-max-age over the profile's load_max_age; None: read every partition."""
    age = args.load_max_age if args.load_max_age is not None else profile.load_max_age
    if age <= 0:
        return None
    from ..services.recent_load import LoadReuse

    return LoadReuse(age, admin.journal)


def placement_options(args: argparse.Namespace, profile: Profile) -> PlacementOptions:
    """Flags over the profile; a minimum given alone implies `enabled` (KIP-409's CLI), and
    `--under-replicated disabled` given with a minimum is a usage error naming both."""
    from ..services.placing import PlacementOptions

    mode = args.under_replicated
    if mode is None and profile.under_replicated != "disabled":
        mode = profile.under_replicated
    try:
        return PlacementOptions.of(
            mode, args.min_required_replication_factor, args.placement or profile.placement
        )
    except FieldError as exc:
        raise parsing.UsageError(field_error_text(exc)) from None


def _excluded(args: argparse.Namespace, profile: Profile, topic: TopicDescription) -> bool:
    """--exclude-internal: Kafka's internal topics, and kafka-tui's own record topic."""
    return bool(args.exclude_internal) and (
        topic.internal or topic.name == profile.placeholders_topic
    )


def zookeeper_of(args: argparse.Namespace, profile: Profile) -> str | None:
    return getattr(args, "zookeeper", None) or profile.zookeeper_connect


def _topic_regex_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--topic",
        metavar="REGEX",
        help="also every topic whose whole name matches this regular expression, as "
        "kafka-topics.sh's --topic (e.g. 'orders-.*')",
    )


async def _named_topics(
    args: argparse.Namespace,
    admin: KafkaAdmin,
    *,
    internal: bool = True,
    unmatched: frozenset[str] = frozenset(),
) -> list[str]:
    """The positional names, then the topics a --topic regex matches (sorted), once each.
    Internal topics match only when `internal` (never for deletion); `unmatched` never
    matches (named, they are still taken)."""
    names = list(args.topics)
    if args.topic is not None:
        pattern = parsing.topic_regex(args.topic)
        names += [
            t.name
            for t in await admin.list_topics()
            if pattern.fullmatch(t.name)
            and (internal or not t.internal)
            and t.name not in unmatched
        ]
    if not names and args.topic is None:
        raise parsing.UsageError(f"topics {args.action}: name at least one TOPIC or --topic REGEX")
    return list(dict.fromkeys(names))


def _nothing_matched(args: argparse.Namespace) -> list[TopicResult]:
    if getattr(args, "if_exists", False):
        return []
    return [
        TopicResult(
            args.topic,
            ok=False,
            error="UNKNOWN_TOPIC_OR_PARTITION",
            message=f"No topic matches the regular expression '{args.topic}'.",
        )
    ]


def _change_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--validate-only", action="store_true", help="check, change nothing")
    parser.add_argument(
        "--timeout-ms",
        type=int,
        default=DEFAULT_TIMEOUT_MS,
        help="wait until every partition has a leader (<= 0: return once accepted)",
    )


def _changes_something(args: argparse.Namespace) -> bool:
    if args.command != "topics" or args.action in ("list", "describe", "keys"):
        return False
    if args.action == "configs":
        return bool(args.add_config or args.delete_config) and not args.validate_only
    return not getattr(args, "validate_only", False)


async def run(args: argparse.Namespace, profile: Profile, admin: KafkaAdmin) -> int:
    """Run one command; returns the exit code (0 all ok, 1 some topic failed)."""
    as_json = args.output in ("json", "jsonl")  # jsonl streams only in describe
    if profile.read_only and _changes_something(args):
        raise ReadOnlyProfile(profile.name)
    if args.command == "cluster":
        output.cluster(await admin.describe_cluster(), as_json)
        return 0
    match args.action:
        case "list":
            topics = await admin.list_topics()
            output.topic_list(
                [t for t in topics if not _excluded(args, profile, t)],
                as_json,
            )
            return 0
        case "describe":
            return await _describe(args, profile, admin, as_json)
        case "create":
            return output.results(await _create(args, profile, admin), as_json)
        case "alter" if args.replication_factor is not None:
            from . import reassign  # only here: the planner's import is spared to the rest

            return await reassign.alter_replication_factor(
                args,
                admin,
                await _named_topics(args, admin),
                placement_options(args, profile),
                zookeeper_of(args, profile),
            )
        case "alter":
            if args.partitions is None:
                raise parsing.UsageError(
                    "topics alter: give --partitions N or --replication-factor N"
                )
            with audit.operation("topics alter"):
                return await _alter(args, profile, admin, as_json)
        case "reassign":
            from . import reassign

            names = await _named_topics(args, admin) if args.topics or args.topic else []
            return await reassign.reassign_topics(
                args, admin, names, placement_options(args, profile), zookeeper_of(args, profile)
            )
        case "delete":
            return await _delete(args, profile, admin, as_json)
        case "configs":
            return await _configs(args, admin, as_json)
        case "keys":
            from . import topic_keys

            return await topic_keys.run(args, profile, admin, as_json)
    raise parsing.UsageError(f"unknown action {args.action}")


async def _describe(
    args: argparse.Namespace, profile: Profile, admin: KafkaAdmin, as_json: bool
) -> int:
    """Printed a batch at a time as the batches are read (admin.describe_topics_in_batches);
    each batch's errors go to stderr as they come."""
    names: list[str] | None = None
    failures = 0
    if args.topics or args.topic is not None:
        names = await _named_topics(args, admin)
        if not names:
            failures += _report_errors(_nothing_matched(args))
    configs, keys = _configs_to_read(args, named=names is not None)
    live: set[int] | None = None
    if args.unavailable_partitions:
        live = set((await admin.describe_cluster()).live_broker_ids)
    store = PlaceholderStore(profile.connection, profile.placeholders_topic)
    stored = await stored_placeholders(admin, store)
    stale = []
    writer = output.DescribeWriter(args.output, topic_lines_only=args.topics_with_overrides)
    batches = admin.describe_topics_in_batches(names, configs=configs, config_keys=keys, elr=True)
    async for found, errors in batches if names != [] else _no_batches():
        failures += _report_errors(errors)
        topics = [t for t in found if not _excluded(args, profile, t)]
        if args.topics_with_overrides:
            topics = [t for t in topics if any(c.is_override for c in t.configs.values())]
        elif _partition_filters(args):
            topics = [
                t for t in (_filter_partitions(t, args, live) for t in topics) if t.partitions
            ]
        entries, changed = current_entries(stored, {t.name: t for t in topics})
        stale += changed
        writer.write(
            topics,
            {
                n: {p: [s.slot for s in slots] for p, slots in e.slots.items()}
                for n, e in entries.items()
            },
        )
    writer.close()
    if stale and not profile.read_only:
        with contextlib.suppress(AdminError):
            await store.write(stale)
    return 1 if failures else 0


async def _no_batches() -> AsyncIterator[tuple[list[TopicDescription], list[TopicResult]]]:
    return
    yield


def _report_errors(errors: Sequence[TopicResult]) -> int:
    for e in errors:
        print(f"Error ({e.error}): {e.message}", file=sys.stderr, flush=True)
    return len(errors)


def _partition_filters(args: argparse.Namespace) -> bool:
    return any(
        (
            args.under_replicated_partitions,
            args.under_min_isr_partitions,
            args.at_min_isr_partitions,
            args.unavailable_partitions,
        )
    )


def _configs_to_read(args: argparse.Namespace, *, named: bool) -> tuple[bool, list[str] | None]:
    """(read configs?, only these keys): all configs for named topics and for
    --topics-with-overrides, as kafka-topics.sh; none for every topic (the configs cost
    ~1 s per 1,000 topics) or with --no-configs; the min-ISR filters need
    min.insync.replicas whatever else is read."""
    if args.topics_with_overrides and args.no_configs:
        raise parsing.UsageError(
            "topics describe: --topics-with-overrides needs the configs; drop --no-configs"
        )
    if (named or args.topics_with_overrides) and not args.no_configs:
        return True, None
    if args.under_min_isr_partitions or args.at_min_isr_partitions:
        return True, ["min.insync.replicas"]
    return False, None


def _filter_partitions(
    topic: TopicDescription, args: argparse.Namespace, live: set[int] | None
) -> TopicDescription:
    min_isr = topic.min_insync_replicas() or 1
    keep = []
    for p in topic.partitions:
        if (
            (args.under_replicated_partitions and p.under_replicated)
            or (args.under_min_isr_partitions and len(p.isr) < min_isr)
            or (args.at_min_isr_partitions and len(p.isr) == min_isr)
            or (
                args.unavailable_partitions
                and (p.leader < 0 or (live is not None and p.leader not in live))
            )
        ):
            keep.append(p)
    return replace(topic, partitions=keep)


def check_flags(args: argparse.Namespace) -> None:
    """Flag combinations refused before connecting, as kafka-topics.sh refuses them."""
    if args.action == "create" and args.replica_assignment:
        given = [
            flag
            for flag, value in (
                ("--partitions", args.partitions),
                ("--replication-factor", args.replication_factor),
            )
            if value is not None
        ]
        if given:
            raise parsing.UsageError(
                f"topics create: --replica-assignment cannot be used with {' or '.join(given)}: "
                "the assignment gives every partition and its replicas"
            )


async def _create(
    args: argparse.Namespace, profile: Profile, admin: KafkaAdmin
) -> list[TopicResult]:
    from ..services import placing
    from ..services.snapshot import take_snapshot

    assignment = (
        parsing.replica_assignment(args.replica_assignment) if args.replica_assignment else None
    )
    configs = parsing.config_pairs(args.config)
    specs = [
        TopicSpec(
            name=name,
            partitions=args.partitions,
            replication_factor=args.replication_factor,
            assignment=assignment,
            configs=configs,
        )
        for name in args.topics
    ]
    options = placement_options(args, profile)
    if options.placement == "broker" and assignment is None:
        results = await admin.create_topics(
            specs,
            timeout_ms=args.timeout_ms,
            validate_only=args.validate_only,
            topic_ids=False,
        )
    else:
        store = PlaceholderStore(profile.connection, profile.placeholders_topic)
        reuse = load_reuse(args, profile, admin)
        snapshot = await take_snapshot(
            admin,
            zookeeper=zookeeper_of(args, profile),
            store=store,
            current=args.topics,
            defaults=placing.needs_defaults(specs, options),
            reuse=reuse,
            every_dir=False,
        )
        results = await placing.create_topics(
            admin,
            snapshot,
            specs,
            options,
            store,
            timeout_ms=args.timeout_ms,
            validate_only=args.validate_only,
            topic_ids=False,
        )
        if reuse is not None and not args.validate_only:
            reuse.placed(admin.cluster_id, results)
    if args.if_not_exists:
        results = [
            replace(r, ok=True, error=None, message=f"Topic '{r.topic}' already exists; skipped.")
            if r.error == "TOPIC_ALREADY_EXISTS"
            else r
            for r in results
        ]
    return results


async def _alter(
    args: argparse.Namespace, profile: Profile, admin: KafkaAdmin, as_json: bool
) -> int:
    """Grows the topics; a grow that moves keys warns (KEY_MAPPING_CHANGES), and one of a
    compacted topic asks first on a terminal (--yes: not)."""
    from ..services.growing import grow_partitions, key_mapping_check, warn_key_mapping
    from ..services.snapshot import take_snapshot
    from . import topic_keys

    lists = parsing.replica_lists(args.replica_assignment) if args.replica_assignment else None
    options = placement_options(args, profile)
    names = await _named_topics(args, admin)
    if not names:
        return output.results(_nothing_matched(args), as_json)
    requests = [NewPartitions(name, args.partitions, lists) for name in names]
    if options.placement == "broker" and lists is None:
        found, _ = await admin.describe_topics(names, configs=False)
        current = {t.name: len(t.partitions) for t in found}
        keys = await key_mapping_check(admin, requests, current)
        said = topic_keys.say_recent_counts(admin.cluster_id, current, args.partitions, keys)
        if not _confirm_key_moves(args, keys, current):
            return 1
        results = await admin.create_partitions(
            requests, timeout_ms=args.timeout_ms, validate_only=args.validate_only
        )
        warned = warn_key_mapping(results, requests, current, keys)
        return topic_keys.grow_results(warned, as_json, said)
    store = PlaceholderStore(profile.connection, profile.placeholders_topic)
    zookeeper = zookeeper_of(args, profile)
    reuse = load_reuse(args, profile, admin)
    snapshot = await take_snapshot(
        admin, zookeeper=zookeeper, store=store, current=names, reuse=reuse, every_dir=False
    )
    current = {n: len(snapshot.topics[n].partitions) for n in names if n in snapshot.topics}
    keys = await key_mapping_check(admin, requests, current)
    said = topic_keys.say_recent_counts(admin.cluster_id, current, args.partitions, keys)
    if not _confirm_key_moves(args, keys, current):
        return 1
    results = await grow_partitions(
        admin,
        snapshot,
        requests,
        options,
        store,
        zookeeper=zookeeper,
        timeout_ms=args.timeout_ms,
        validate_only=args.validate_only,
        keys=keys,
    )
    if reuse is not None and not args.validate_only:
        reuse.placed(admin.cluster_id, results)
    return topic_keys.grow_results(results, as_json, said)


def _confirm_key_moves(
    args: argparse.Namespace, keys: Mapping[str, KeyMapping], current: Mapping[str, int]
) -> bool:
    """Growing a compacted topic moves keys for good (a moved key's old record stays beside
    its new one): on a terminal the operator confirms; off one, --yes is needed."""
    from ..services.keys import needs_confirmation

    compacted = needs_confirmation(keys)
    if not compacted or args.validate_only or args.yes:
        return True
    listed = ", ".join(f"'{t}'" for t in compacted)
    if not sys.stdin.isatty():
        raise parsing.UsageError(
            f"refusing to grow compacted topic{'s' * (len(compacted) > 1)} {listed} without "
            "confirmation: growing moves keys to other partitions, and compaction then keeps a "
            "moved key's old record beside its new one. Not a terminal; pass --yes to grow "
            "anyway"
        )
    for t in compacted:
        print(keys[t].sentence(current[t], args.partitions), file=sys.stderr)
    try:
        answer = input("Grow anyway? Type yes to confirm: ")
    except EOFError:
        answer = ""
    if answer.strip().lower() != "yes":
        print("Nothing changed: the grow was not confirmed.", file=sys.stderr)
        return False
    return True


def _confirm_deletion(names: list[str], by_count: bool) -> bool:
    """On a terminal, the operator types the topic name (or the count, for several or for
    the matches of a regex)."""
    by_count = by_count or len(names) > 1
    expected = str(len(names)) if by_count else names[0]
    what = f"{len(names)} topics: {', '.join(names)}" if by_count else f"topic '{names[0]}'"
    prompt = "their number" if by_count else "its name"
    print(f"About to delete {what}. This cannot be undone.", file=sys.stderr)
    try:
        answer = input(f"Type {prompt} ({expected}) to confirm: ")
    except EOFError:
        return False
    return answer.strip() == expected


def _print_readers(names: Sequence[str], readers: Readers) -> None:
    """Who reads the topics, before the confirmation (stderr: stdout carries the results)."""
    for name in names:
        for i, r in enumerate(readers.of(name)):
            if i == 0:
                print(f"Consumer groups with offsets on '{name}':", file=sys.stderr)
            print(f"  {r.describe()}", file=sys.stderr)
    if not any(readers.of(n) for n in names):
        what = "this topic" if len(names) == 1 else "these topics"
        print(f"No consumer group has committed offsets on {what}.", file=sys.stderr)
    if readers.note:
        print(f"Note: {readers.note}", file=sys.stderr)
    for name in names:
        now_ms = readers.checked_at_ms
        for i, w in enumerate(readers.writers_of(name)):
            if i == 0:
                print(f"Producers still known to the leaders of '{name}':", file=sys.stderr)
            print(f"  {w.describe(now_ms)}{'' if w.live else ' (expired)'}", file=sys.stderr)
    if readers.writers_note:
        print(f"Note: {readers.writers_note}", file=sys.stderr)


def _warn_of_writers(names: Sequence[str], readers: Readers) -> None:
    """A topic deleted under a live producer comes back where brokers auto-create topics:
    said on stderr whatever the output format."""
    for name in names:
        warning = readers.writer_warning(name)
        if warning:
            where = "it" if len(names) == 1 else f"'{name}'"
            print(f"Warning: {warning.replace('to it', f'to {where}', 1)}.", file=sys.stderr)


async def _delete(
    args: argparse.Namespace, profile: Profile, admin: KafkaAdmin, as_json: bool
) -> int:
    """The consumer groups reading each topic and the producers writing to it are shown
    before the confirmation and land in each result; --if-unconsumed refuses the topics a
    group with members reads or a live producer writes to."""
    from ..services.consumers import readers_of, unconsumed_only

    # kafka-tui's own placeholder topic is no more matched than Kafka's internal ones:
    # `--topic '__.*'` deleting it would lose every KIP-409 record. Named, it is deleted.
    names = await _named_topics(
        args, admin, internal=False, unmatched=frozenset({profile.placeholders_topic})
    )
    if not names:
        return output.results(_nothing_matched(args), as_json)
    asking = not args.yes
    if asking and not sys.stdin.isatty():
        raise parsing.UsageError(
            "refusing to delete without confirmation: not a terminal; pass --yes"
        )
    readers = await readers_of(admin, names)
    if asking or not as_json:
        _print_readers(names, readers)
    _warn_of_writers(names, readers)
    to_delete, refused = (
        unconsumed_only(names, readers) if args.if_unconsumed else (list(names), {})
    )
    if asking and to_delete:
        for r in refused.values():
            print(f"Not deleted ({r.error}): {r.message}", file=sys.stderr)
        if not _confirm_deletion(to_delete, by_count=args.topic is not None):
            print("Nothing deleted: the confirmation did not match.", file=sys.stderr)
            return 1
    store = PlaceholderStore(profile.connection, profile.placeholders_topic)
    deleted: list[TopicResult] = []
    offsets: dict[str, list[GroupOffsetsDeleted]] = {}
    if to_delete and args.delete_group_offsets:
        from ..services.group_offsets import delete_readers_offsets

        offsets = await delete_readers_offsets(admin, to_delete, readers)
        for outcome in (o for found in offsets.values() for o in found):
            line = outcome.message if outcome.ok else f"Error ({outcome.error}): {outcome.message}"
            print(line, file=sys.stderr)
    if to_delete:
        deleted, warning = await delete_topics(admin, store, to_delete, timeout_ms=args.timeout_ms)
        if warning:
            print(f"kafka-tui: warning: {warning}", file=sys.stderr)
    by_topic = {r.topic: r for r in deleted} | refused
    results = [by_topic[n] for n in names if n in by_topic]
    if args.if_exists:
        results = [
            replace(r, ok=True, error=None, message=f"Topic '{r.topic}' does not exist; skipped.")
            if r.error == "UNKNOWN_TOPIC_OR_PARTITION"
            else r
            for r in results
        ]
    kept = any(not o.ok for found in offsets.values() for o in found)
    if not as_json:
        code = output.results(results, as_json)
        return max(code, 1 if kept else 0)
    documents = []
    for r in map(worded, results):
        document = r.to_json()
        document["consumer_groups"] = [g.to_json() for g in readers.of(r.topic)]
        if readers.note:
            document["consumer_groups_note"] = readers.note
        document["producers"] = [w.to_json() for w in readers.writers_of(r.topic)]
        document["auto_create"] = readers.auto_create
        if readers.writers_note:
            document["producers_note"] = readers.writers_note
        if args.delete_group_offsets:
            document["group_offsets"] = [o.to_json() for o in offsets.get(r.topic, [])]
        documents.append(document)
    output.emit_json(documents)
    return 0 if all(r.ok for r in results) and not kept else 1


async def _configs(args: argparse.Namespace, admin: KafkaAdmin, as_json: bool) -> int:
    topic = args.topics[0]
    changes = [
        ConfigChange(k, ConfigOp.SET, v)
        for k, v in (parsing.add_config(args.add_config) if args.add_config else {}).items()
    ]
    changes += [
        ConfigChange(k, ConfigOp.DELETE)
        for k in (parsing.delete_config(args.delete_config) if args.delete_config else [])
    ]
    if changes:
        results = await admin.alter_topic_configs(
            {topic: changes}, validate_only=args.validate_only
        )
        return output.results(results, as_json)
    found, errors = await admin.describe_topics([topic])
    if errors:
        return output.results(errors, as_json)
    entries = found[0].configs
    if as_json:
        output.emit_json(
            [
                {
                    "topic": topic,
                    "name": c.name,
                    "value": c.value,
                    "source": c.source.name,
                    "override": c.is_override,
                }
                for c in sorted(entries.values(), key=lambda c: c.name)
            ]
        )
    else:
        for c in sorted(entries.values(), key=lambda c: (not c.is_override, c.name)):
            print(f"{c.name}={with_unit(c.name, c.value)}\t{c.source.label}")
    return 0
