"""What makes a dev cluster Kerberized (`dev-cluster up --security sasl_gssapi`).

An MIT KDC of its own (Debian's krb5-kdc: `kdb5_util`, `kadmin.local`, `krb5kdc`) on a
loopback TCP port, with a realm, a krb5.conf and a database in `<cluster>/kdc`; the brokers'
principal `kafka/localhost@KAFKA.TEST` and the users admin, viewer and creator, each with a
keytab in `<cluster>/kdc/keytabs`. Each broker gets a SASL_PLAINTEXT listener with GSSAPI
for clients, advertised as `localhost` (the host of the service principal clients ask a
ticket for), and keeps a PLAINTEXT listener on 127.0.0.1 for traffic between brokers and the
dev cluster's own probes (ANONYMOUS is a super user there, as on the KRaft controller's
listener). The roles' ACLs are security.py's: the short name of `viewer@KAFKA.TEST` is
`viewer`.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..admin.model import ConnectionSettings
from . import probe
from .security import ADMIN, USERS

REALM = "KAFKA.TEST"
SERVICE = "kafka"
SERVICE_HOST = "localhost"
LISTENER = "KERBEROS"
INTERNAL = "INTERNAL"
KDC_DIR = "kdc"
# The Debian packages that hold the KDC's programs (.ci/setup installs them).
KDC_PACKAGES = "krb5-kdc krb5-admin-server krb5-user"
_PROGRAMS = ("kdb5_util", "kadmin.local", "krb5kdc")


class KerberosSetupError(RuntimeError):
    """The KDC could not be made or started; the message says why."""


@dataclass
class KerberosState:
    """Kept in cluster.json: the KDC's port and pid, and each broker's GSSAPI port."""

    kdc_port: int
    realm: str = REALM
    kdc_pid: int | None = None
    client_ports: dict[str, int] = field(default_factory=dict)

    def client_port(self, broker: str) -> int:
        """The broker's GSSAPI listener port (picked the first time it is asked)."""
        if broker not in self.client_ports:
            taken = set(self.client_ports.values()) | {self.kdc_port}
            while (port := probe.free_ports(1)[0]) in taken:
                pass
            self.client_ports[broker] = port
        return self.client_ports[broker]


@dataclass(frozen=True)
class KdcFiles:
    root: Path

    @property
    def krb5_conf(self) -> Path:
        return self.root / "krb5.conf"

    @property
    def kdc_conf(self) -> Path:
        return self.root / "kdc.conf"

    @property
    def broker_keytab(self) -> Path:
        return self.root / "keytabs" / "kafka.keytab"

    def keytab(self, user: str) -> Path:
        return self.root / "keytabs" / f"{user}.keytab"

    @property
    def log(self) -> Path:
        return self.root / "kdc.log"


def kdc_files(cluster_root: Path) -> KdcFiles:
    return KdcFiles(cluster_root / KDC_DIR)


def principal(user: str, realm: str = REALM) -> str:
    return f"{user}@{realm}"


def service_principal(realm: str = REALM) -> str:
    return f"{SERVICE}/{SERVICE_HOST}@{realm}"


def _program(name: str) -> str | None:
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/bin")


def missing_programs() -> list[str]:
    """The KDC programs this machine lacks (none: a Kerberized cluster can start)."""
    return [name for name in _PROGRAMS if _program(name) is None]


def _krb5_conf(state: KerberosState, files: KdcFiles) -> str:
    # TCP only (udp_preference_limit = 1, for MIT and Java alike): the KDC listens on one
    # TCP port picked free, and no UDP port needs to be. No DNS: host names stay as written.
    return f"""[libdefaults]
    default_realm = {state.realm}
    dns_lookup_realm = false
    dns_lookup_kdc = false
    dns_canonicalize_hostname = false
    rdns = false
    udp_preference_limit = 1
    ticket_lifetime = 24h
    forwardable = true

[realms]
    {state.realm} = {{
        kdc = 127.0.0.1:{state.kdc_port}
    }}

[domain_realm]
    localhost = {state.realm}

[logging]
    kdc = FILE:{files.log}
"""


def _kdc_conf(state: KerberosState, files: KdcFiles) -> str:
    return f"""[kdcdefaults]
    kdc_listen = ""
    kdc_tcp_listen = 127.0.0.1:{state.kdc_port}

[realms]
    {state.realm} = {{
        database_name = {files.root / "principal"}
        key_stash_file = {files.root / "stash"}
        acl_file = {files.root / "kadm5.acl"}
        kdc_listen = ""
        kdc_tcp_listen = 127.0.0.1:{state.kdc_port}
        max_life = 24h
        max_renewable_life = 7d
        supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
    }}
"""


def kdc_env(files: KdcFiles) -> dict[str, str]:
    """The environment the KDC's own programs (and kinit/klist for this realm) run with."""
    return os.environ | {
        "KRB5_CONFIG": str(files.krb5_conf),
        "KRB5_KDC_PROFILE": str(files.kdc_conf),
    }


def _run(files: KdcFiles, args: list[str], stdin: str | None = None) -> str:
    done = subprocess.run(
        args,
        input=stdin,
        capture_output=True,
        text=True,
        env=kdc_env(files),
        cwd=files.root,
        timeout=60,
        check=False,
    )
    if done.returncode != 0:
        raise KerberosSetupError(f"{args[0]} failed: {(done.stderr or done.stdout).strip()[-500:]}")
    return done.stdout


def kadmin(files: KdcFiles, *commands: str) -> str:
    """Run kadmin.local commands against the dev cluster's KDC database."""
    program = _program("kadmin.local")
    assert program is not None
    return _run(files, [program], "\n".join(commands) + "\n")


def create_kdc(cluster_root: Path, state: KerberosState) -> KdcFiles:
    """The realm's database, the broker's and the users' principals and their keytabs."""
    missing = missing_programs()
    if missing:
        raise KerberosSetupError(
            f"--security sasl_gssapi needs MIT Kerberos' KDC programs ({', '.join(missing)} "
            f"not found): apt-get install {KDC_PACKAGES} (or run .ci/setup)"
        )
    files = kdc_files(cluster_root)
    (files.root / "keytabs").mkdir(parents=True, exist_ok=True)
    files.krb5_conf.write_text(_krb5_conf(state, files))
    files.kdc_conf.write_text(_kdc_conf(state, files))
    (files.root / "kadm5.acl").write_text("")
    util = _program("kdb5_util")
    assert util is not None
    # -P: the master key's password; the stash file (-s) holds the key, nothing asks again.
    _run(files, [util, "create", "-s", "-r", state.realm, "-P", os.urandom(16).hex()])
    commands = [f"addprinc -randkey {service_principal(state.realm)}"]
    commands.append(f"ktadd -k {files.broker_keytab} {service_principal(state.realm)}")
    for user in USERS:
        commands.append(f"addprinc -randkey {principal(user, state.realm)}")
        commands.append(f"ktadd -k {files.keytab(user)} {principal(user, state.realm)}")
    kadmin(files, *commands)
    for keytab in files.root.glob("keytabs/*.keytab"):
        keytab.chmod(0o600)
    return files


def _is_our_kdc(pid: int | None, files: KdcFiles) -> bool:
    if not pid:
        return False
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        cwd = os.readlink(f"/proc/{pid}/cwd")
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    # Just after exec, cmdline may read empty for a moment.
    ours = cmdline == [b""] or cmdline[0].endswith(b"krb5kdc")
    return state != "Z" and ours and Path(cwd) == files.root


def kdc_running(state: KerberosState, cluster_root: Path) -> bool:
    return _is_our_kdc(state.kdc_pid, kdc_files(cluster_root))


def start_kdc(cluster_root: Path, state: KerberosState, timeout: float) -> None:
    """Start the KDC (when not running) and wait until its port answers."""
    files = kdc_files(cluster_root)
    if not kdc_running(state, cluster_root):
        program = _program("krb5kdc")
        assert program is not None
        with files.log.open("ab") as log:
            proc = subprocess.Popen(
                [program, "-n", "-r", state.realm],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=kdc_env(files),
                cwd=files.root,
                start_new_session=True,
            )
        state.kdc_pid = proc.pid
    deadline = time.monotonic() + timeout
    while not probe.port_open(state.kdc_port):
        if not kdc_running(state, cluster_root):
            tail = files.log.read_text(errors="replace")[-1500:] if files.log.exists() else ""
            raise KerberosSetupError(f"the KDC exited during start-up:\n{tail}")
        if time.monotonic() > deadline:
            raise KerberosSetupError(f"the KDC did not listen on 127.0.0.1:{state.kdc_port}")
        time.sleep(0.05)


def stop_kdc(cluster_root: Path, state: KerberosState, timeout: float = 10.0) -> None:
    files = kdc_files(cluster_root)
    pid = state.kdc_pid
    if pid is None or not _is_our_kdc(pid, files):
        return
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while _is_our_kdc(pid, files):
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            deadline += timeout
        time.sleep(0.05)


# -- brokers ------------------------------------------------------------------------------------


def jvm_flags(cluster_root: Path) -> list[str]:
    """Java's Kerberos reads the realm and KDC from this file, never from KRB5_CONFIG."""
    return [f"-Djava.security.krb5.conf={kdc_files(cluster_root).krb5_conf}"]


def broker_properties(
    state: KerberosState, cluster_root: Path, *, broker: str, port: int, kraft: bool
) -> dict[str, str | int]:
    """The listeners, GSSAPI and authorizer settings of a Kerberized broker; `port` is its
    PLAINTEXT listener's, the dev cluster's own way in."""
    files = kdc_files(cluster_root)
    client_port = state.client_port(broker)
    jaas = (
        "com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true "
        f'keyTab="{files.broker_keytab}" principal="{service_principal(state.realm)}";'
    )
    protocols = f"{INTERNAL}:PLAINTEXT,{LISTENER}:SASL_PLAINTEXT"
    if kraft:
        protocols += ",CONTROLLER:PLAINTEXT"
    listener = LISTENER.lower()
    return {
        "listeners": f"{INTERNAL}://127.0.0.1:{port},{LISTENER}://127.0.0.1:{client_port}",
        "advertised.listeners": (
            f"{INTERNAL}://127.0.0.1:{port},{LISTENER}://{SERVICE_HOST}:{client_port}"
        ),
        "inter.broker.listener.name": INTERNAL,
        "listener.security.protocol.map": protocols,
        "sasl.enabled.mechanisms": "GSSAPI",
        "sasl.kerberos.service.name": SERVICE,
        f"listener.name.{listener}.gssapi.sasl.jaas.config": jaas,
        **authorizer_properties(kraft=kraft),
    }


def authorizer_properties(*, kraft: bool) -> dict[str, str | int]:
    authorizer = (
        "org.apache.kafka.metadata.authorizer.StandardAuthorizer"
        if kraft
        else "kafka.security.authorizer.AclAuthorizer"
    )
    # ANONYMOUS: whoever reaches a PLAINTEXT listener (brokers, the controller, the probes).
    return {"authorizer.class.name": authorizer, "super.users": f"User:{ADMIN};User:ANONYMOUS"}


# -- clients ------------------------------------------------------------------------------------


def bootstrap_servers(state: KerberosState, brokers: list[str]) -> str:
    return ",".join(f"{SERVICE_HOST}:{state.client_port(b)}" for b in brokers)


def status_entry(state: KerberosState | None, cluster_root: Path) -> dict[str, Any]:
    """`dev-cluster status`'s "kerberos" entry: how a client logs in."""
    if state is None:
        return {}
    files = kdc_files(cluster_root)
    return {
        "kerberos": {
            "protocol": "SASL_PLAINTEXT",
            "mechanism": "GSSAPI",
            "realm": state.realm,
            "kdc": f"127.0.0.1:{state.kdc_port}",
            "krb5_conf": str(files.krb5_conf),
            "service_name": SERVICE,
            "service_principal": service_principal(state.realm),
            "users": {
                user: {"principal": principal(user, state.realm), "keytab": str(files.keytab(user))}
                for user in USERS
            },
        }
    }


def profile_entries(kerberos: dict[str, Any], user: str | None) -> dict[str, str]:
    """The profile keys that log in as `user` (default admin) with its keytab."""
    chosen = kerberos["users"][user or ADMIN]
    return {
        "security_protocol": kerberos["protocol"],
        "sasl_mechanism": kerberos["mechanism"],
        "sasl_kerberos_service_name": kerberos["service_name"],
        "sasl_kerberos_principal": chosen["principal"],
        "sasl_kerberos_keytab": chosen["keytab"],
        "krb5_config": kerberos["krb5_conf"],
    }


def connection_settings(
    state: KerberosState, cluster_root: Path, bootstrap: str, user: str
) -> ConnectionSettings:
    files = kdc_files(cluster_root)
    return ConnectionSettings(
        bootstrap,
        security_protocol="SASL_PLAINTEXT",
        sasl_mechanism="GSSAPI",
        sasl_kerberos_service_name=SERVICE,
        sasl_kerberos_principal=principal(user, state.realm),
        sasl_kerberos_keytab=str(files.keytab(user)),
        krb5_config=str(files.krb5_conf),
    )
