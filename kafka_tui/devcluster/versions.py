"""What differs between the Kafka versions the dev cluster runs (2.1 to 4.4), in one place.

Each difference is one named row below: the first version that has it, and why. The rest
of the dev cluster asks a `Release` (`release("2.8.2").scala`, `.modes`, ...) and never
compares version numbers itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Mode = Literal["kraft", "zk"]
Logging = Literal["log4j2", "log4j1"]
Coordinate = tuple[str, str, str]  # Maven groupId, artifactId, version
Version = tuple[int, int, int]

# The defaults: the newest release of each mode.
KRAFT_VERSION = "4.4.0"
ZK_VERSION = "3.9.2"

OLDEST: Version = (2, 1, 0)  # Kafka 4.x's tools still manage 2.1 (KIP-896)
NEWEST_MINOR = (4, 4)  # newer versions are refused until measured here

# -- the table: first version with each difference ---------------------------------------------
# kafka_2.13 artifacts start at 2.4.0; before, the newest Scala build is kafka_2.12.
SCALA_2_13: Version = (2, 4, 0)
# KRaft is production-ready from 3.3 (KIP-833); 2.8-3.2 shipped it as early access.
KRAFT: Version = (3, 3, 0)
# ZooKeeper mode is gone from 4.0 (KIP-500).
NO_ZOOKEEPER: Version = (4, 0, 0)
# Kafka logs through log4j2 from 4.0 (KIP-653); before, log4j 1.x syntax (reload4j here).
LOG4J2: Version = (4, 0, 0)
# ZooKeeper 3.4's client cannot connect on Java 14+ ("Opening socket connection to server
# 127.0.0.1/<unresolved>:PORT", java.nio.channels.UnresolvedAddressException: it parses the
# address's toString(), which Java 14 changed); 3.5's can (measured: 3.5.6 in Kafka 2.4.0, 3.5.7
# in 2.5.0). Kafka 2.1-2.3 ship ZooKeeper 3.4.13-3.4.14, so they run with 3.5.9 (client and
# server; Kafka 2.7.2-2.8 ship it) in its place.
JAVA17_ZOOKEEPER: Version = (2, 4, 0)
ZOOKEEPER_FOR_JAVA17 = "3.5.9"
# The share-group coordinator's internal topic (KIP-932) and its settings: 4.0 on.
SHARE_COORDINATOR: Version = (4, 0, 0)
# Secured clusters: the brokers' TLS key is an unencrypted PEM file, which brokers accept from
# 3.3 (KAFKA-12703; PEM keystores came in 2.7 with KIP-651, and 2.7-3.2 stop with "SSL PEM key
# store is specified, but key password is not specified."). KRaft users are made by
# `StorageTool format --add-scram` (KIP-900), from 3.5.
UNENCRYPTED_PEM_KEYS: Version = (3, 3, 0)
KRAFT_SCRAM_BOOTSTRAP: Version = (3, 5, 0)

# Logging bindings: Kafka's POMs bring slf4j-api only. ZooKeeper 3.4-3.6's POMs (Kafka 2.1 -
# 3.5) bring slf4j-log4j12 and log4j 1.2.17: excluded, so there is one binding everywhere
# (slf4j-reload4j). ZooKeeper 3.4's server cannot start on reload4j 1.2.19 (its log4j JMX
# classes are gone: NoClassDefFoundError org/apache/log4j/jmx/HierarchyDynamicMBean, unless
# -Dzookeeper.jmx.log4j.disable=true); 3.5.9's server starts without them.
_LOG4J2_BINDING: Coordinate = ("org.apache.logging.log4j", "log4j-slf4j-impl", "2.25.3")
_RELOAD4J_BINDING: Coordinate = ("org.slf4j", "slf4j-reload4j", "1.7.36")
_LOG4J1_EXCLUDED = (("log4j", "log4j"), ("org.slf4j", "slf4j-log4j12"))


class VersionError(ValueError):
    """A version or a version/mode pair the dev cluster cannot run; the message says why."""


def parse(version: str) -> Version:
    match = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", version)
    if match is None:
        raise VersionError(f"--kafka-version wants a full release like 3.9.2, not {version!r}")
    major, minor, patch = (int(part) for part in match.groups())
    return major, minor, patch


def _dotted(version: tuple[int, ...]) -> str:
    return ".".join(str(part) for part in version)


@dataclass(frozen=True)
class Release:
    """One Kafka version, as the dev cluster runs it."""

    version: str

    @property
    def number(self) -> Version:
        return parse(self.version)

    def at_least(self, first: Version) -> bool:
        return self.number >= first

    @property
    def scala(self) -> str:
        return "2.13" if self.at_least(SCALA_2_13) else "2.12"

    @property
    def core_artifact(self) -> str:
        return f"kafka_{self.scala}"

    @property
    def modes(self) -> tuple[Mode, ...]:
        kraft: tuple[Mode, ...] = ("kraft",) if self.at_least(KRAFT) else ()
        zk: tuple[Mode, ...] = () if self.at_least(NO_ZOOKEEPER) else ("zk",)
        return kraft + zk

    @property
    def default_mode(self) -> Mode:
        return self.modes[0]

    @property
    def logging(self) -> Logging:
        return "log4j2" if self.at_least(LOG4J2) else "log4j1"

    def dependencies(self) -> list[Coordinate]:
        """What the POM asks for: Kafka, its tools (on Central for every version: the perf
        tools; TopicCommand from 3.7, kafka.admin.TopicCommand in core before) and one logging
        binding."""
        binding = _LOG4J2_BINDING if self.logging == "log4j2" else _RELOAD4J_BINDING
        return [
            ("org.apache.kafka", self.core_artifact, self.version),
            ("org.apache.kafka", "kafka-tools", self.version),
            binding,
        ]

    def excluded(self) -> tuple[tuple[str, str], ...]:
        """(groupId, artifactId) left out of Kafka's dependencies."""
        return () if self.logging == "log4j2" else _LOG4J1_EXCLUDED

    def pinned(self) -> list[Coordinate]:
        """Versions forced on transitive dependencies (Maven dependencyManagement)."""
        if self.at_least(JAVA17_ZOOKEEPER):
            return []
        return [("org.apache.zookeeper", "zookeeper", ZOOKEEPER_FOR_JAVA17)]

    def has_share_coordinator(self) -> bool:
        return self.at_least(SHARE_COORDINATOR)

    def security_problem(self, mode: Mode, security: str) -> str | None:
        """Why `security` cannot run on this version in `mode`; None when it can."""
        if security == "plaintext":
            return None
        first = KRAFT_SCRAM_BOOTSTRAP if mode == "kraft" else UNENCRYPTED_PEM_KEYS
        if self.at_least(first):
            return None
        why = (
            "KRaft mode, where the users are made at format time (StorageTool --add-scram, KIP-900)"
            if mode == "kraft"
            else "ZooKeeper mode, where the brokers' TLS key is an unencrypted PEM file "
            "(KAFKA-12703)"
        )
        return (
            f"--security {security} needs Kafka {_dotted(first[:2])} or newer in {why}; "
            f"Kafka {self.version} runs plaintext only"
        )


def release(version: str) -> Release:
    """The release for `version`, refused when it is outside 2.1-4.4."""
    number = parse(version)
    if number < OLDEST:
        raise VersionError(
            f"Kafka {version} is older than the dev cluster runs ({_dotted(OLDEST[:2])} to "
            f"{_dotted(NEWEST_MINOR)})"
        )
    if number[:2] > NEWEST_MINOR:
        raise VersionError(
            f"Kafka {version} is newer than the dev cluster knows ({_dotted(OLDEST[:2])} to "
            f"{_dotted(NEWEST_MINOR)})"
        )
    return Release(version)


def choose(mode: Mode | None, version: str | None) -> tuple[Mode, Release]:
    """The mode and release for `up`: either may be left out (KRaft where the version has it,
    the mode's default version); an impossible pair is refused in one sentence."""
    if version is None:
        chosen: Mode = mode or "kraft"
        return chosen, release(KRAFT_VERSION if chosen == "kraft" else ZK_VERSION)
    found = release(version)
    if mode is None:
        return found.default_mode, found
    if mode not in found.modes:
        if mode == "kraft":
            raise VersionError(
                f"Kafka {version} has no production KRaft mode (KRaft is "
                f"{_dotted(KRAFT[:2])} and newer); use --mode zk"
            )
        raise VersionError(
            f"Kafka {version} has no ZooKeeper mode (removed in "
            f"{_dotted(NO_ZOOKEEPER[:2])}); use --mode kraft or a 3.x version"
        )
    return mode, found
