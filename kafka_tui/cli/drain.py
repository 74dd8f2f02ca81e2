"""`brokers drain ID...`, `brokers undrain ID...` and `brokers replace OLD NEW`: the preview
(moves, bytes, replicas per broker before -> after) before asking, the run of
services/draining.py with a bar on a terminal, Ctrl+C ending it cleanly, and the command that
resumes it."""

from __future__ import annotations

import argparse
import asyncio
import shlex
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from ..admin import KafkaAdmin
from ..admin.placeholders import PlaceholderStore
from ..config import Profile
from ..services import draining as service
from ..services.parsing import UsageError
from ..services.reassigning import human_bytes
from . import output
from .topics import zookeeper_of

SHOWN_MOVES = 20  # moves listed before asking; the rest are counted


def add_actions(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    drain = actions.add_parser(
        "drain",
        help="cordon (4.3+), move leadership then every replica off the brokers; resumable",
    )
    drain.add_argument("broker_ids", type=int, nargs="+", metavar="ID")
    _run_flags(drain)
    undrain = actions.add_parser("undrain", help="uncordon drained brokers (Kafka 4.3+)")
    undrain.add_argument("broker_ids", type=int, nargs="+", metavar="ID")
    replace = actions.add_parser(
        "replace", help="a new broker id takes every replica of an old one, in place"
    )
    replace.add_argument("old", type=int, metavar="OLD")
    replace.add_argument("new", type=int, metavar="NEW")
    _run_flags(replace)


def _run_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--batch",
        type=int,
        default=service.DEFAULT_BATCH,
        metavar="N",
        help=f"at most N partitions copying at once (default {service.DEFAULT_BATCH})",
    )
    parser.add_argument(
        "--throttle",
        type=int,
        metavar="BYTES_PER_S",
        help="replication throttle on the brokers and partitions moving, removed at the end",
    )
    parser.add_argument("--validate-only", action="store_true", help="preview, send nothing")
    # How long a move's new broker may be gone before the move is cancelled as stalled;
    # the tests shorten it (not for operators: the default is the rule).
    parser.add_argument(
        "--stall-timeout", type=float, default=service.STALL_S, help=argparse.SUPPRESS
    )
    parser.add_argument("--yes", action="store_true", help="do not ask for confirmation")


async def run(args: argparse.Namespace, profile: Profile, admin: KafkaAdmin) -> int:
    as_json = args.output == "json"
    zookeeper = zookeeper_of(args, profile)
    if args.action == "undrain":
        results = await service.undrain(admin, args.broker_ids)
        rows = [{"broker": b, "ok": ok, "error": e, "message": m} for b, ok, e, m in results]
        if as_json:
            output.emit_json(rows)
        else:
            for r in rows:
                ok = r["ok"]
                text = r["message"] if ok else f"Error ({r['error']}): {r['message']}"
                print(text, file=sys.stdout if ok else sys.stderr)
        return 0 if all(r["ok"] for r in rows) else 1
    if args.batch < 1:
        raise UsageError("--batch must be at least 1 partition")
    if args.throttle is not None and args.throttle < 1:
        raise UsageError("--throttle must be at least 1 byte per second")
    if args.stall_timeout <= 0:
        raise UsageError("--stall-timeout must be above 0 seconds")
    if args.action == "drain":
        preview = await service.preview_drain(admin, args.broker_ids, zookeeper=zookeeper)
    else:
        preview = await service.preview_replace(admin, args.old, args.new, zookeeper=zookeeper)
    if not as_json:
        _show(preview)
    if args.validate_only:
        outcome = service.Outcome(preview, "preview", "Preview: nothing sent.")
        return _print(outcome, as_json, args)
    if not args.yes and not _confirmed(preview):
        print("Nothing changed: the confirmation did not match.", file=sys.stderr)
        return 1
    store = None
    if args.action == "replace":
        store = PlaceholderStore(profile.connection, profile.placeholders_topic)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        with _bar(not as_json) as progress:
            outcome = await service.run(
                admin,
                preview,
                batch=args.batch,
                throttle=args.throttle,
                stop=stop,
                progress=progress,
                store=store,
                stall_s=args.stall_timeout,
            )
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
    return _print(outcome, as_json, args)


def _what(preview: service.Preview) -> str:
    if preview.kind == "drain":
        return f"drain broker(s) {', '.join(map(str, preview.brokers))}"
    return f"replace broker {preview.brokers[0]} by {preview.brokers[1]}"


def _show(preview: service.Preview) -> None:
    """The plan on stderr: what moves, the bytes, the balance after, what cannot move."""
    p = preview.planned
    err = sys.stderr
    print(f"Plan to {_what(preview)}:", file=err)
    if preview.kind == "drain":
        print(
            f"  leadership: {len(p.reorders)} partition(s) reordered, {len(p.elect)} to elect",
            file=err,
        )
        if note := preview.cordon_note():
            print(f"  {note}", file=err)
    print(
        f"  {len(p.moves)} partition move(s), {human_bytes(preview.bytes_to_move)} to copy",
        file=err,
    )
    for m in p.moves[:SHOWN_MOVES]:
        changes = " ".join([f"+{b}" for b in m.move.added] + [f"-{b}" for b in m.move.removed])
        print(
            f"\t{m.topic}\tPartition: {m.move.partition}\t{_ids(m.move.before)} -> "
            f"{_ids(m.move.after)}\t{changes}",
            file=err,
        )
    if len(p.moves) > SHOWN_MOVES:
        print(f"\t... and {len(p.moves) - SHOWN_MOVES} more", file=err)
    before, after = preview.replicas_per_broker()
    counts = ", ".join(f"{b}: {before.get(b, 0)} -> {after.get(b, 0)}" for b in sorted(after))
    print(f"  replicas per broker: {counts}", file=err)
    for u in p.unmovable:
        print(f"  cannot move {u.topic}-{u.partition} ({_ids(u.replicas)}): {u.reason}", file=err)


def _confirmed(preview: service.Preview) -> bool:
    if not sys.stdin.isatty():
        raise UsageError(f"refusing to {_what(preview)} without confirmation: pass --yes")
    wanted = " ".join(map(str, preview.brokers))
    try:
        return input(f"Type the broker ids ({wanted}) to confirm: ").strip() == wanted
    except EOFError:
        return False


def _resume(args: argparse.Namespace) -> str:
    argv = [a for a in args.argv if a != "--validate-only"]
    return "kafka-tui " + shlex.join(argv)


def _print(outcome: service.Outcome, as_json: bool, args: argparse.Namespace) -> int:
    data = outcome.to_json()
    if outcome.state == "interrupted":
        data["resume"] = _resume(args)
    if as_json:
        output.emit_json(data)
    else:
        print(outcome.message)
        for m, why in outcome.refused:
            print(f"Error: {m.topic}-{m.move.partition}: {why}", file=sys.stderr)
        for s in outcome.stalled:
            print(f"Stalled: {s.message}", file=sys.stderr)
        if outcome.rollback_file:
            print(
                f"Rollback file (the replicas before): {outcome.rollback_file}\n"
                f"  undo: kafka-tui topics reassign --reassignment-json-file "
                f"{outcome.rollback_file}"
            )
        if outcome.throttle_left_on:
            print(
                f"Once broker(s) {_ids(tuple(outcome.throttle_left_on))} are back: "
                "kafka-tui throttles clear --orphaned",
                file=sys.stderr,
            )
        if outcome.state == "interrupted":
            print(f"Resume (it moves only what is still on the broker): {data['resume']}")
    return 0 if outcome.ok else 1


@contextmanager
def _bar(show: bool) -> Iterator[service.Progress]:
    """A rich bar on a terminal: partitions, bytes copied, rate and time left."""
    if not (show and sys.stderr.isatty()):
        yield _stall_lines()  # in JSON too: stderr only
        return
    from rich.progress import BarColumn, Progress, TextColumn

    bar = Progress(
        TextColumn("{task.fields[step]} {task.fields[done]}/{task.fields[of]} partitions"),
        BarColumn(),
        TextColumn(
            "{task.fields[copied]} of {task.fields[total_b]}, "
            "{task.fields[rate]}/s, {task.fields[eta]} left{task.fields[stall]}"
        ),
        transient=True,
    )
    task = bar.add_task(
        "", total=None, step="", done=0, of=0, copied="", total_b="", rate="", eta="?", stall=""
    )

    def update(p: service.DrainProgress) -> None:
        eta = "?" if p.eta_s is None else f"{p.eta_s:.0f} s"
        bar.update(
            task,
            total=p.total or p.of or None,
            completed=p.copied if p.total else p.done,
            step=p.step,
            done=p.done,
            of=p.of,
            copied=human_bytes(p.copied),
            total_b=human_bytes(p.total),
            rate=human_bytes(int(p.rate)),
            eta=eta,
            stall=f"; {words}" if (words := p.stall_words()) else "",
        )

    bar.start()
    try:
        yield update
    finally:
        bar.stop()


def _stall_lines() -> service.Progress:
    """Off a terminal: one stderr line each time the brokers a stall waits on change."""
    shown: list[tuple[int, ...]] = [()]

    def update(p: service.DrainProgress) -> None:
        if p.step == "moving" and p.gone != shown[0]:
            shown[0] = p.gone
            if p.gone:
                print(f"Waiting: {p.stall_words()}", file=sys.stderr)

    return update


def _ids(ids: tuple[int, ...]) -> str:
    return ",".join(map(str, ids))
