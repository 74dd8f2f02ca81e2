"""kafka-tui against Kerberized clusters (`dev-cluster up --security sasl_gssapi`: an MIT KDC
of the cluster's own, brokers with a SASL_PLAINTEXT/GSSAPI listener, ACLs per principal),
KRaft 4.4 and ZooKeeper-mode 3.9: a keytab and a kinit'ed ticket cache, from a profile and
from kafka-topics.sh's client.properties, and the one-line failure sentences, each from the
real KDC and brokers."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import shutil
import stat
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from kafka_tui.admin import ConnectionFailed, ConnectionSettings, KafkaAdmin, TopicSpec
from kafka_tui.config import Profile, Settings, parse_settings
from kafka_tui.devcluster import DevCluster
from kafka_tui.devcluster import kerberos as kdc
from kafka_tui.tui.app import make_app
from kafka_tui.tui.screens.metadata import MetadataScreen
from kafka_tui.tui.widgets.topic_table import TopicTable

Names = Callable[[str], str]
KRB5 = "com.sun.security.auth.module.Krb5LoginModule"


def _why_not_runnable() -> str | None:
    missing = kdc.missing_programs() + [p for p in ("kinit", "klist") if not shutil.which(p)]
    if missing:
        return f"MIT Kerberos programs missing ({', '.join(missing)}): run .ci/setup"
    try:
        import gssapi  # noqa: F401
    except ImportError:
        return "the Python package gssapi is not installed: run .ci/setup"
    return None


pytestmark = pytest.mark.skipif(_why_not_runnable() is not None, reason=str(_why_not_runnable()))


@dataclass
class KerberosCluster:
    dev: DevCluster
    bootstrap_servers: str
    status: dict[str, object]
    krb5_conf: str

    def keytab(self, user: str) -> str:
        return str(kdc.kdc_files(self.dev.root).keytab(user))

    def settings(self, user: str = "admin", **changes: object) -> ConnectionSettings:
        return dataclasses.replace(self.dev.connection_settings(user), **changes)  # type: ignore[arg-type]

    def env(self, **extra: str) -> dict[str, str]:
        """The environment of kinit/klist and of a kafka-tui process for this realm."""
        return os.environ | {"KRB5_CONFIG": self.krb5_conf} | extra


@pytest.fixture(scope="module", params=["kraft", "zk"])
def secured_kerberos_cluster(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[KerberosCluster]:
    """One Kerberized cluster at a time (2 brokers): KRaft 4.4, then ZooKeeper-mode 3.9."""
    dev = DevCluster(tmp_path_factory.mktemp(f"kerberos-{request.param}"))
    try:
        dev.up(request.param, brokers=2, security="sasl_gssapi")
        status = dev.status()
        krb = status["kerberos"]
        yield KerberosCluster(dev, status["bootstrap_servers"], status, krb["krb5_conf"])
    finally:
        if not os.environ.get("KAFKA_TUI_TEST_KEEP_CLUSTERS"):
            dev.down(kill=True)  # its data goes with its folder: no controlled shutdown


@pytest.fixture(autouse=True)
def _realm_env(
    secured_kerberos_cluster: KerberosCluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The realm's krb5.conf and an empty ticket cache of the test's own (a login that sets
    KRB5_CONFIG sets it for the process: restored after each test)."""
    monkeypatch.setenv("KRB5_CONFIG", secured_kerberos_cluster.krb5_conf)
    monkeypatch.setenv("KRB5CCNAME", f"FILE:{tmp_path / 'no-ticket-cache'}")


def properties(tmp_path: Path, cluster: KerberosCluster, jaas: str | None, **extra: str) -> Path:
    """A client.properties as an operator writes it for kafka-topics.sh."""
    lines = {
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": "GSSAPI",
        "sasl.kerberos.service.name": "kafka",
        **({"sasl.jaas.config": f"{KRB5} required {jaas};"} if jaas else {}),
        **extra,
    }
    path = tmp_path / "krb.properties"
    path.write_text("".join(f"{k}={v}\n" for k, v in lines.items()))
    return path


def keytab_jaas(cluster: KerberosCluster, user: str) -> str:
    return (
        f'useKeyTab=true storeKey=true keyTab="{cluster.keytab(user)}" '
        f'principal="{user}@{kdc.REALM}"'
    )


def kafka_tui(
    cluster: KerberosCluster, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            *(sys.executable, "-m", "kafka_tui.cli"),
            *("--bootstrap-server", cluster.bootstrap_servers, "--output", "json", *args),
        ],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        env=env or cluster.env(),
    )


def kinit(cluster: KerberosCluster, ccache: Path, user: str, *flags: str) -> None:
    principal = f"{user}@{kdc.REALM}"
    env = cluster.env(KRB5CCNAME=f"FILE:{ccache}")
    subprocess.run(["kinit", *flags, "-kt", cluster.keytab(user), principal], env=env, check=True)


def test_status_and_profile_say_how_to_log_in(secured_kerberos_cluster: KerberosCluster) -> None:
    c = secured_kerberos_cluster
    krb = c.status["kerberos"]
    assert isinstance(krb, dict)
    root = c.dev.root / "kdc"
    assert {k: krb[k] for k in ("protocol", "mechanism", "realm", "service_principal")} == {
        "protocol": "SASL_PLAINTEXT",
        "mechanism": "GSSAPI",
        "realm": "KAFKA.TEST",
        "service_principal": "kafka/localhost@KAFKA.TEST",
    }
    assert krb["users"] == {
        user: {
            "principal": f"{user}@KAFKA.TEST",
            "keytab": str(root / "keytabs" / f"{user}.keytab"),
        }
        for user in ("admin", "viewer", "creator")
    }
    for user in ("admin", "viewer", "creator"):
        mode = (root / "keytabs" / f"{user}.keytab").stat().st_mode
        assert stat.S_IMODE(mode) == 0o600
    assert all(s.startswith("localhost:") for s in c.bootstrap_servers.split(","))
    printed = subprocess.run(
        [*(sys.executable, "-m", "kafka_tui.cli", "dev-cluster", "--dir", str(c.dev.root)),
         *("profile", "krb", "--user", "viewer")],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    profile = parse_settings(tomllib.loads(printed)).profiles["krb"].connection
    assert (profile.sasl_mechanism, profile.sasl_kerberos_principal) == (
        "GSSAPI",
        "viewer@KAFKA.TEST",
    )
    assert profile.sasl_kerberos_keytab == c.keytab("viewer")
    assert profile.krb5_config == c.krb5_conf


def test_keytab_in_client_properties_lists_creates_and_deletes(
    secured_kerberos_cluster: KerberosCluster, tmp_path: Path, topic_name: Names
) -> None:
    c = secured_kerberos_cluster
    config = str(properties(tmp_path, c, keytab_jaas(c, "admin")))
    name = topic_name("krb")
    created = kafka_tui(c, "--command-config", config, "topics", "create", name,
                        "--partitions", "2", "--replication-factor", "2")  # fmt: skip
    assert created.returncode == 0, created.stderr
    assert json.loads(created.stdout)[0]["ok"] is True
    listed = kafka_tui(c, "--command-config", config, "topics", "list")
    assert listed.returncode == 0, listed.stderr
    assert name in [t["topic"] for t in json.loads(listed.stdout)]
    deleted = kafka_tui(c, "--command-config", config, "topics", "delete", name, "--yes")
    assert deleted.returncode == 0, deleted.stderr


def test_ticket_cache_from_kinit_named_or_default(
    secured_kerberos_cluster: KerberosCluster, tmp_path: Path, topic_name: Names
) -> None:
    c = secured_kerberos_cluster
    ccache = tmp_path / "creator-cc"
    kinit(c, ccache, "creator")
    named = properties(tmp_path, c, f'useTicketCache=true ticketCache="{ccache}"')
    team = "team-" + topic_name("cc")
    created = kafka_tui(c, "--command-config", str(named), "topics", "create", team,
                        "--partitions", "1", "--replication-factor", "2")  # fmt: skip
    assert created.returncode == 0, created.stderr
    # No ticketCache=: the default cache, KRB5CCNAME as kinit left it.
    default = properties(tmp_path, c, "useTicketCache=true")
    env = c.env(KRB5CCNAME=f"FILE:{ccache}")
    deleted = kafka_tui(c, "--command-config", str(default), "topics", "delete", team, "--yes",
                        env=env)  # fmt: skip
    assert deleted.returncode == 0, deleted.stderr


def test_viewer_reads_but_cannot_create(
    secured_kerberos_cluster: KerberosCluster, tmp_path: Path, topic_name: Names
) -> None:
    c = secured_kerberos_cluster
    config = str(properties(tmp_path, c, keytab_jaas(c, "viewer")))
    listed = kafka_tui(c, "--command-config", config, "-v", "topics", "list")
    assert listed.returncode == 0, listed.stderr
    keytab = c.keytab("viewer")
    assert f"Kerberos login of viewer@KAFKA.TEST to kafka@localhost (keytab {keytab})" in (
        listed.stderr
    )
    refused = kafka_tui(c, "--command-config", config, "topics", "create", topic_name("v"),
                        "--partitions", "1")  # fmt: skip
    assert refused.returncode == 1, refused.stderr
    [result] = json.loads(refused.stdout)
    assert (result["ok"], result["error"]) == (False, "TOPIC_AUTHORIZATION_FAILED")


async def test_the_tui_opens_on_the_kerberized_cluster(
    secured_kerberos_cluster: KerberosCluster, topic_name: Names
) -> None:
    """The TUI logs in through the same connections: as `viewer` with its keytab, it lists a
    topic `admin` made."""
    c = secured_kerberos_cluster
    name = "team-" + topic_name("tui")
    async with KafkaAdmin(c.settings("admin")) as admin:
        assert (await admin.create_topics([TopicSpec(name, 1, 2)]))[0].ok
    profile = Profile("viewer", c.settings("viewer"))
    app = make_app(Settings(profiles={"viewer": profile}), profile, refresh_seconds=0)
    async with app.run_test(size=(100, 30)):
        screen = app.screen
        assert isinstance(screen, MetadataScreen)
        await asyncio.wait_for(screen.loaded.wait(), 60)
        await app.workers.wait_for_complete()
        assert name in [r.name for r in screen.query_one(TopicTable).rows]


async def _refusal(settings: ConnectionSettings) -> str:
    with pytest.raises(ConnectionFailed) as refused:
        async with KafkaAdmin(settings):
            pass
    message = str(refused.value)
    assert "\n" not in message and message.startswith("Cannot connect to Kafka at localhost:")
    return message


async def test_missing_ticket_names_kinit_and_the_keytab(
    secured_kerberos_cluster: KerberosCluster,
) -> None:
    settings = secured_kerberos_cluster.settings(
        sasl_kerberos_keytab=None, sasl_kerberos_principal=None
    )
    message = await _refusal(settings)
    assert "no Kerberos ticket" in message and "run kinit" in message
    assert "sasl_kerberos_keytab" in message


async def test_wrong_service_name_names_the_setting(
    secured_kerberos_cluster: KerberosCluster,
) -> None:
    message = await _refusal(
        secured_kerberos_cluster.settings(sasl_kerberos_service_name="kafka-wrong")
    )
    assert "no service principal kafka-wrong/localhost" in message
    assert "sasl.kerberos.service.name" in message


async def test_wrong_realm_in_the_principal_or_the_configuration(
    secured_kerberos_cluster: KerberosCluster, tmp_path: Path
) -> None:
    c = secured_kerberos_cluster
    message = await _refusal(c.settings(sasl_kerberos_principal="admin@WRONG.TEST"))
    assert message.count("wrong realm") == 1 and "holds admin@KAFKA.TEST" in message
    assert "sasl_kerberos_principal" in message
    # A krb5.conf that does not know the realm (no KDC for it): e.g. the system's own.
    other = tmp_path / "krb5.conf"
    other.write_text("[libdefaults]\n default_realm = OTHER.TEST\n dns_lookup_kdc = false\n")
    message = await _refusal(c.settings(krb5_config=str(other)))
    assert f"wrong realm: no KDC is configured for the realm of admin@KAFKA.TEST in {other}" in (
        message
    )


async def test_principal_unknown_to_the_kdc(
    secured_kerberos_cluster: KerberosCluster, tmp_path: Path
) -> None:
    """A keytab whose principal was deleted from the KDC since."""
    c = secured_kerberos_cluster
    files = kdc.kdc_files(c.dev.root)
    keytab = tmp_path / "gone.keytab"
    kdc.kadmin(files, "addprinc -randkey gone", f"ktadd -k {keytab} gone", "delprinc -force gone")
    message = await _refusal(
        c.settings(sasl_kerberos_principal="gone@KAFKA.TEST", sasl_kerberos_keytab=str(keytab))
    )
    assert "the KDC does not know the principal gone@KAFKA.TEST" in message
    assert "sasl_kerberos_principal / principal=" in message


def _until_expired(env: dict[str, str]) -> None:
    """Poll `klist -s` (exit 1 once the cache holds no valid ticket), with a deadline."""
    deadline = time.monotonic() + 30
    while subprocess.run(["klist", "-s"], env=env, check=False).returncode == 0:
        assert time.monotonic() < deadline, "the 2-second ticket did not expire"
        time.sleep(0.2)


async def test_expired_ticket_says_kinit_again(
    secured_kerberos_cluster: KerberosCluster, tmp_path: Path
) -> None:
    c = secured_kerberos_cluster
    ccache = tmp_path / "short-cc"
    kinit(c, ccache, "admin", "-l", "2s")
    await asyncio.to_thread(_until_expired, c.env(KRB5CCNAME=f"FILE:{ccache}"))
    settings = c.settings(
        sasl_kerberos_keytab=None, sasl_kerberos_principal=None, sasl_kerberos_ccache=str(ccache)
    )
    message = await _refusal(settings)
    assert f"the Kerberos ticket in ticket cache {ccache} has expired: run kinit again" in message


async def test_zz_broker_keytab_out_of_date_is_the_brokers_refusal(
    secured_kerberos_cluster: KerberosCluster, tmp_path: Path
) -> None:
    """The service principal's key changed at the KDC since the brokers read their keytab:
    the client gets a ticket the broker cannot read, and the broker refuses the login.
    (Last in the module: the cluster takes no Kerberos login after it.)"""
    c = secured_kerberos_cluster
    keytab = tmp_path / "late.keytab"
    files = kdc.kdc_files(c.dev.root)
    # A principal of its own: a login of this process may hold a service ticket from before.
    kdc.kadmin(files, "addprinc -randkey late", f"ktadd -k {keytab} late")
    kdc.kadmin(files, f"cpw -randkey {kdc.service_principal()}")
    message = await _refusal(
        c.settings(sasl_kerberos_principal="late@KAFKA.TEST", sasl_kerberos_keytab=str(keytab))
    )
    assert "the broker at localhost:" in message and "refused the Kerberos login" in message
