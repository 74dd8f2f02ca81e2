"""Secured dev clusters (`dev-cluster up --security sasl_ssl`), KRaft 4.1 and ZooKeeper 3.9:
TLS from the cluster's own CA, SCRAM-SHA-512 logins, and ACLs that make `viewer` read-only
and let `creator` manage `team-` topics only."""

from __future__ import annotations

import json
import os
import socket
import ssl
import stat
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

from kafka_tui.admin import ConnectionFailed, KafkaAdmin, TopicSpec
from kafka_tui.config import parse_settings
from kafka_tui.devcluster import probe

from ..conftest import SecuredCluster


def _cli(cluster: SecuredCluster, *args: str, env: dict[str, str] | None = None) -> str:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "kafka_tui.cli",
            "dev-cluster",
            "--dir",
            str(cluster.dev.root),
            *args,
        ],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout


def _peer_certificate(host: str, port: int, cafile: str) -> dict[str, object]:
    """A TLS handshake with hostname checking, as any client does it."""
    context = ssl.create_default_context(cafile=cafile)
    with (
        socket.create_connection((host, port), timeout=10) as raw,
        context.wrap_socket(raw, server_hostname=host) as tls,
    ):
        return tls.getpeercert()  # type: ignore[return-value]


def test_status_reports_the_security_and_keeps_passwords_private(
    secured_cluster: SecuredCluster,
) -> None:
    status = json.loads(_cli(secured_cluster, "status", "--output", "json"))
    assert status["security"] == {
        "protocol": "SASL_SSL",
        "mechanism": "SCRAM-SHA-512",
        "ca_file": secured_cluster.ca_file,
        "users": secured_cluster.users,
    }
    assert sorted(secured_cluster.users) == ["admin", "creator", "viewer"]
    assert len(set(secured_cluster.users.values())) == 3
    state_file = secured_cluster.dev.root / "cluster.json"
    assert stat.S_IMODE(state_file.stat().st_mode) == 0o600
    assert stat.S_IMODE((secured_cluster.dev.root / "tls" / "broker.pem").stat().st_mode) == 0o600
    assert [b["running"] for b in status["brokers"]] == [True, True]


def test_the_ca_verifies_every_broker_and_the_other_ca_does_not(
    secured_cluster: SecuredCluster,
) -> None:
    for broker in secured_cluster.dev.status()["brokers"]:
        cert = _peer_certificate("127.0.0.1", broker["port"], secured_cluster.ca_file)
        assert set(cert["subjectAltName"]) == {  # type: ignore[call-overload]
            ("DNS", "localhost"),
            ("IP Address", "127.0.0.1"),
        }
        with pytest.raises(ssl.SSLCertVerificationError, match="self-signed certificate"):
            _peer_certificate("127.0.0.1", broker["port"], secured_cluster.other_ca_file)
        # The listener answers on every local address; the certificate names only two.
        with pytest.raises(ssl.SSLCertVerificationError, match="mismatch"):
            _peer_certificate("127.0.0.2", broker["port"], secured_cluster.ca_file)


def test_a_plaintext_client_gets_no_metadata(secured_cluster: SecuredCluster) -> None:
    for broker in secured_cluster.dev.status()["brokers"]:
        assert probe.port_open(broker["port"])
        assert probe.brokers_seen_by(broker["port"]) is None


async def test_admin_creates_describes_and_deletes_a_topic(
    secured_cluster: SecuredCluster, topic_name: Callable[[str], str]
) -> None:
    name = topic_name("admin")
    async with KafkaAdmin(secured_cluster.settings("admin")) as admin:
        [created] = await admin.create_topics([TopicSpec(name, 2, 2)])
        assert created.ok, created.message
        [described], errors = await admin.describe_topics([name])
        assert errors == []
        assert [sorted(p.replicas) for p in described.partitions] == [[1, 2], [1, 2]]
        assert described.configs["cleanup.policy"].value == "delete"
        [deleted] = await admin.delete_topics([name])
        assert deleted.ok, deleted.message
        assert name not in {t.name for t in await admin.list_topics(consistent_for=[name])}


async def test_viewer_reads_everything_and_creates_nothing(
    secured_cluster: SecuredCluster, topic_name: Callable[[str], str]
) -> None:
    name = topic_name("seen")
    async with KafkaAdmin(secured_cluster.settings("admin")) as admin:
        [created] = await admin.create_topics([TopicSpec(name, 1, 2)])
        assert created.ok, created.message
    async with KafkaAdmin(secured_cluster.settings("viewer")) as viewer:
        cluster = await viewer.describe_cluster()
        assert [b.id for b in cluster.brokers] == [1, 2]
        [described], errors = await viewer.describe_topics([name])
        assert errors == []
        assert described.configs["cleanup.policy"].value == "delete"
        refused = await viewer.create_topics([TopicSpec("team-" + topic_name("x"), 1, 1)])
        assert [r.error for r in refused] == ["TOPIC_AUTHORIZATION_FAILED"]
        [not_deleted] = await viewer.delete_topics([name])
        assert not_deleted.error == "TOPIC_AUTHORIZATION_FAILED"
        assert name in {t.name for t in await viewer.list_topics()}


async def test_creator_manages_team_topics_only(
    secured_cluster: SecuredCluster, topic_name: Callable[[str], str]
) -> None:
    ours = "team-" + topic_name("ours")
    others = "other-" + topic_name("others")
    async with KafkaAdmin(secured_cluster.settings("admin")) as admin:
        [created] = await admin.create_topics([TopicSpec(others, 1, 1)])
        assert created.ok, created.message
    async with KafkaAdmin(secured_cluster.settings("creator")) as creator:
        results = await creator.create_topics(
            [TopicSpec(ours, 1, 2), TopicSpec("other-" + topic_name("new"), 1, 1)]
        )
        assert [(r.ok, r.error) for r in results] == [
            (True, None),
            (False, "TOPIC_AUTHORIZATION_FAILED"),
        ]
        [refused] = await creator.delete_topics([others])
        assert refused.error == "TOPIC_AUTHORIZATION_FAILED"
        [deleted] = await creator.delete_topics([ours])
        assert deleted.ok, deleted.message


@pytest.mark.parametrize("user", ["admin", "viewer"])
async def test_a_wrong_password_fails_to_connect(
    secured_cluster: SecuredCluster, user: str
) -> None:
    with pytest.raises(ConnectionFailed, match=r"(?i)authentication failed"):
        async with KafkaAdmin(secured_cluster.settings(user, sasl_password="not-the-password")):
            pass


async def test_an_untrusted_ca_fails_to_connect(secured_cluster: SecuredCluster) -> None:
    with pytest.raises(ConnectionFailed, match=r"(?i)not trusted"):
        async with KafkaAdmin(secured_cluster.settings(ssl_cafile=secured_cluster.other_ca_file)):
            pass


async def test_a_host_name_mismatch_fails_to_connect(secured_cluster: SecuredCluster) -> None:
    servers = secured_cluster.mismatched_bootstrap_servers
    with pytest.raises(ConnectionFailed, match=r"(?i)mismatch"):
        async with KafkaAdmin(secured_cluster.settings(bootstrap_servers=servers)):
            pass
    # Without the host-name check, the same address works: only the name was wrong.
    unchecked = secured_cluster.settings(bootstrap_servers=servers, ssl_check_hostname=False)
    async with KafkaAdmin(unchecked) as admin:
        assert [b.id for b in (await admin.describe_cluster()).brokers] == [1, 2]


async def test_the_printed_profile_parses_and_connects(
    secured_cluster: SecuredCluster, tmp_path: Path
) -> None:
    text = _cli(secured_cluster, "profile", "dev-local", "--user", "creator")
    assert "KAFKA_TUI_DEV_LOCAL_PASSWORD" in text
    assert secured_cluster.users["creator"] not in text
    password = _cli(secured_cluster, "password", "creator").strip()
    assert password == secured_cluster.users["creator"]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KAFKA_TUI_DEV_LOCAL_PASSWORD", password)
        settings = parse_settings(tomllib.loads(text), tmp_path / "config.toml")
    profile = settings.profiles["dev-local"]
    assert profile.connection.sasl_username == "creator"
    assert profile.connection.ssl_cafile == secured_cluster.ca_file
    assert profile.zookeeper_connect == secured_cluster.zookeeper
    async with KafkaAdmin(profile.connection) as admin:
        assert [b.id for b in (await admin.describe_cluster()).brokers] == [1, 2]


def test_password_refuses_a_plaintext_cluster(tmp_path: Path) -> None:
    env = os.environ | {"KAFKA_TUI_DEVCLUSTER_DIR": str(tmp_path / "none")}
    done = subprocess.run(
        [sys.executable, "-m", "kafka_tui.cli", "dev-cluster", "password", "admin"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 2
    assert "sasl_ssl" in done.stderr


def test_up_again_keeps_the_running_secured_cluster(secured_cluster: SecuredCluster) -> None:
    before = secured_cluster.dev.status()
    secured_cluster.dev.up(secured_cluster.mode, brokers=2, security="sasl_ssl")
    after = secured_cluster.dev.status()
    assert [b["pid"] for b in after["brokers"]] == [b["pid"] for b in before["brokers"]]
    assert after["security"] == before["security"]


async def test_a_stopped_broker_leaves_and_rejoins_a_secured_cluster(
    secured_cluster: SecuredCluster,
) -> None:
    dev = secured_cluster.dev
    try:
        dev.stop_broker(2)
        async with KafkaAdmin(secured_cluster.settings("viewer")) as viewer:
            live = [b.id for b in (await viewer.describe_cluster()).brokers if not b.fenced]
            assert live == [1]
    finally:
        dev.start_broker(2)
    async with KafkaAdmin(secured_cluster.settings("viewer")) as viewer:
        live = [b.id for b in (await viewer.describe_cluster()).brokers if not b.fenced]
        assert live == [1, 2]
