"""kafka-tui against secured clusters (SASL_SSL, SCRAM-SHA-512, ACLs), both kinds: the
client.properties of kafka-topics.sh, clear refusals, and no password anywhere."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import pkcs12
from textual.widgets import Input, Static

from kafka_tui.admin import KafkaAdmin, TopicSpec
from kafka_tui.config import Profile, Settings
from kafka_tui.tui.app import make_app
from kafka_tui.tui.screens.create import CreateTopicScreen
from kafka_tui.tui.screens.metadata import MetadataScreen
from kafka_tui.tui.widgets.topic_table import TopicTable

from ..conftest import SecuredCluster

Names = Callable[[str], str]
SCRAM = "org.apache.kafka.common.security.scram.ScramLoginModule"


def properties(
    tmp_path: Path, cluster: SecuredCluster, user: str, password: str | None = None, **extra: str
) -> Path:
    """A client.properties as an operator writes it for kafka-topics.sh."""
    secret = cluster.users[user] if password is None else password
    lines = {
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.jaas.config": f'{SCRAM} required username="{user}" password="{secret}";',
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": cluster.ca_file,
        "acks": "all",  # a producer setting: ignored, said so
        **extra,
    }
    path = tmp_path / f"{user}.properties"
    path.write_text("".join(f"{k}={v}\n" for k, v in lines.items()))
    return path


def kafka_tui(
    cluster: SecuredCluster, config: Path, *args: str, servers: str | None = None
) -> subprocess.CompletedProcess[str]:
    """A whole process, as a script runs it; -v turns the Kafka client's logging on."""
    return subprocess.run(
        [
            *(sys.executable, "-m", "kafka_tui.cli", "-v"),
            *("--bootstrap-server", servers or cluster.bootstrap_servers),
            *("--command-config", str(config), "--output", "json", *args),
        ],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def assert_no_secret(cluster: SecuredCluster, *texts: str, also: str = "") -> None:
    for password in [*cluster.users.values(), *([also] if also else [])]:
        for text in texts:
            assert password not in text


def test_command_config_admin_creates_describes_and_deletes(
    secured_cluster: SecuredCluster, tmp_path: Path, topic_name: Names
) -> None:
    name = topic_name("team")
    config = properties(tmp_path, secured_cluster, "admin")
    created = kafka_tui(
        secured_cluster, config, "topics", "create", name, "--partitions", "2",
        "--replication-factor", "2",
    )  # fmt: skip
    assert created.returncode == 0, created.stderr
    assert json.loads(created.stdout)[0]["ok"] is True
    assert "ignored (not used by kafka-tui): acks" in created.stderr
    described = kafka_tui(secured_cluster, config, "topics", "describe", name)
    assert described.returncode == 0, described.stderr
    assert len(json.loads(described.stdout)[0]["partitions"]) == 2
    deleted = kafka_tui(secured_cluster, config, "topics", "delete", name, "--yes")
    assert deleted.returncode == 0, deleted.stderr
    assert_no_secret(secured_cluster, created.stdout, created.stderr, deleted.stderr)


@pytest.mark.parametrize(
    ("case", "says"),
    [
        ("password", "authentication failed for user 'viewer' (SCRAM-SHA-512)"),
        ("ca", "is not trusted"),
        ("hostname", "host-name mismatch"),
    ],
)
def test_refusals_say_which_check_failed(
    secured_cluster: SecuredCluster, tmp_path: Path, case: str, says: str
) -> None:
    c = secured_cluster
    wrong = "not-" + c.users["viewer"]
    if case == "password":
        config = properties(tmp_path, c, "viewer", password=wrong)
    elif case == "ca":
        config = properties(tmp_path, c, "viewer", **{"ssl.truststore.location": c.other_ca_file})
    else:
        config = properties(tmp_path, c, "viewer")
    servers = c.mismatched_bootstrap_servers if case == "hostname" else None
    done = kafka_tui(c, config, "topics", "list", servers=servers)
    assert done.returncode == 2 and done.stdout == ""
    last = done.stderr.splitlines()[-1]  # after the Kafka client's own log lines (-v)
    assert last.startswith("kafka-tui: Cannot connect") and says in last
    assert "Traceback" not in done.stderr
    assert_no_secret(c, done.stderr, also=wrong)


def test_acls_refuse_topic_by_topic(
    secured_cluster: SecuredCluster, tmp_path: Path, topic_name: Names
) -> None:
    c = secured_cluster
    viewer, creator = properties(tmp_path, c, "viewer"), properties(tmp_path, c, "creator")
    team, other = "team-" + topic_name("ok"), "other-" + topic_name("no")
    listed = kafka_tui(c, viewer, "topics", "list")
    assert listed.returncode == 0, listed.stderr
    refused = kafka_tui(c, viewer, "topics", "create", team, "--partitions", "1")
    assert refused.returncode == 1, refused.stderr
    [result] = json.loads(refused.stdout)
    assert (result["ok"], result["error"]) == (False, "TOPIC_AUTHORIZATION_FAILED")
    assert "Not authorized for topic" in result["message"]
    both = kafka_tui(
        c, creator, "topics", "create", team, other, "--partitions", "1",
        "--replication-factor", "2",
    )  # fmt: skip
    assert both.returncode == 1, both.stderr
    outcome = {r["topic"]: (r["ok"], r["error"]) for r in json.loads(both.stdout)}
    assert outcome == {team: (True, None), other: (False, "TOPIC_AUTHORIZATION_FAILED")}
    deleted = kafka_tui(c, creator, "topics", "delete", team, "--yes")
    assert deleted.returncode == 0, deleted.stderr
    assert_no_secret(c, listed.stderr, refused.stderr, both.stdout, both.stderr)


def test_a_pkcs12_truststore_connects(secured_cluster: SecuredCluster, tmp_path: Path) -> None:
    ca = x509.load_pem_x509_certificate(Path(secured_cluster.ca_file).read_bytes())
    store = tmp_path / "truststore.p12"
    store.write_bytes(
        pkcs12.serialize_key_and_certificates(
            None, None, None, [ca], serialization.BestAvailableEncryption(b"changeit")
        )
    )
    config = properties(
        tmp_path,
        secured_cluster,
        "viewer",
        **{
            "ssl.truststore.type": "PKCS12",
            "ssl.truststore.location": str(store),
            "ssl.truststore.password": "changeit",
        },
    )
    done = kafka_tui(secured_cluster, config, "cluster", "describe")
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)["brokers"]) == len(secured_cluster.dev.status()["brokers"])


async def test_the_tui_as_viewer_browses_and_a_create_fails_with_a_sentence(
    secured_kraft_cluster: SecuredCluster, topic_name: Names
) -> None:
    c = secured_kraft_cluster
    existing = "team-" + topic_name("seen")
    async with KafkaAdmin(c.settings("admin")) as admin:
        assert (await admin.create_topics([TopicSpec(existing, 1, 2)]))[0].ok
    profile = Profile("viewer", c.settings("viewer"))
    app = make_app(Settings(profiles={"viewer": profile}), profile, refresh_seconds=0)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.screen
        assert isinstance(screen, MetadataScreen)
        await asyncio.wait_for(screen.loaded.wait(), 60)
        await app.workers.wait_for_complete()
        assert existing in [r.name for r in screen.query_one(TopicTable).rows]
        name = "team-" + topic_name("new")
        await pilot.press("c", *name, "tab", "1", "tab", "2")
        form = app.screen
        assert isinstance(form, CreateTopicScreen)
        await asyncio.wait_for(form.snapshot_ready.wait(), 60)  # the placer's view, read as viewer
        await pilot.press("ctrl+s")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen is form  # the form and its input stay
        verdict = str(form.query_one("#verdict", Static).render())
        assert verdict.startswith("TOPIC_AUTHORIZATION_FAILED: Not authorized for topic")
        assert form.query_one("#name", Input).value == name
        rendered = "".join(str(w.render()) for w in form.query(Static))
        assert_no_secret(c, rendered)


def test_a_user_who_cannot_read_the_placeholder_records_still_creates(
    secured_kraft_cluster: SecuredCluster, tmp_path: Path, topic_name: Names
) -> None:
    """KIP-409's placeholder records live in a topic only kafka-tui's admins may read; a
    creator's placement must not fail on it (there is nothing of theirs in it to honour)."""
    c = secured_kraft_cluster
    admin, creator = properties(tmp_path, c, "admin"), properties(tmp_path, c, "creator")
    store = kafka_tui(
        c, admin, "topics", "create", "__kafka_tui_placeholders", "--partitions", "1",
        "--replication-factor", "2", "--config", "cleanup.policy=compact", "--if-not-exists",
    )  # fmt: skip
    assert store.returncode == 0, store.stderr
    team = "team-" + topic_name("after-store")
    done = kafka_tui(c, creator, "topics", "create", team, "--partitions", "2")
    assert done.returncode == 0, done.stderr + done.stdout
    assert json.loads(done.stdout)[0]["ok"] is True
    deleted = kafka_tui(c, creator, "topics", "delete", team, "--yes")
    assert deleted.returncode == 0, deleted.stderr + deleted.stdout
