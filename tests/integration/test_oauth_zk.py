"""OAUTHBEARER on a ZooKeeper-mode Kafka 3.9 `dev-cluster up --security sasl_oauthbearer`
cluster, with Kafka 3.x's client.properties (the `secured.` login callback handler): the
same issuer, validator and ACLs as in KRaft mode (test_oauth.py)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from kafka_tui.devcluster import DevCluster

from .test_oauth import assert_no_secret, oauth_properties, with_servers

HANDLER_3 = "org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerLoginCallbackHandler"


@pytest.fixture(scope="module")
def secured_oauth_zk_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevCluster]:
    dev = DevCluster(tmp_path_factory.mktemp("oauth-zk") / "cluster")
    try:
        dev.up("zk", brokers=2, security="sasl_oauthbearer", token_lifetime_s=60)
        yield dev
    finally:
        if not os.environ.get("KAFKA_TUI_TEST_KEEP_CLUSTERS"):
            dev.down(kill=True)  # its data goes with its folder: no controlled shutdown


def test_kafka_3_client_properties_with_acls_per_principal(
    secured_oauth_zk_cluster: DevCluster, tmp_path: Path, topic_name: Callable[[str], str]
) -> None:
    dev = secured_oauth_zk_cluster
    handler = {"sasl.login.callback.handler.class": HANDLER_3}
    team = "team-" + topic_name("c")
    creator = oauth_properties(tmp_path, dev, "creator", **handler)
    created = with_servers(
        dev, creator, "topics", "create", team, "--partitions", "1", "--replication-factor", "2"
    )
    assert created.returncode == 0, created.stderr
    viewer = oauth_properties(tmp_path, dev, "viewer", **handler)
    listed = with_servers(dev, viewer, "topics", "list")
    assert listed.returncode == 0, listed.stderr
    assert team in listed.stdout
    refused = with_servers(dev, viewer, "topics", "create", "team-" + topic_name("v"))
    assert refused.returncode == 1
    assert "TOPIC_AUTHORIZATION_FAILED" in refused.stdout + refused.stderr
    assert_no_secret(dev, created.stdout, created.stderr, listed.stderr, refused.stderr)
