"""kio_loader's header table agrees with kio's own schemas for the requests kafka-tui sends,
and a schema loaded alone is the class its package's import gives."""

from __future__ import annotations

import sys
from typing import Any

from kafka_tui.admin import (
    kio_loader,
    producers,
    protocol,
    protocol_cluster,
    protocol_group_changes,
    protocol_groups,
    record_fetch,
    wire,
)

# Every module defining a WireRequest is imported above, so that the walk below sees them all.
_DEFINING = (producers, protocol, protocol_cluster, protocol_group_changes, protocol_groups)


def _requests(base: type[Any]) -> list[type[Any]]:
    found = []
    for sub in base.__subclasses__():
        found.append(sub)
        found.extend(_requests(sub))
    return found


def test_headers_from_the_table_are_the_schemas_headers() -> None:
    apis = {r.API for r in _requests(wire.WireRequest) if hasattr(r, "API")}
    assert record_fetch.FetchRequest.API in apis and len(apis) > 30
    for api in apis:
        assert api.key in kio_loader.FLEXIBLE_FROM, api  # frames take their headers from it
        # The ends of its range and either side of the switch to the flexible format (a
        # message's versions are flexible from one on: checking each costs ~2 s of loading).
        since = kio_loader.FLEXIBLE_FROM[api.key]
        edges = {api.low, api.high} | ({since - 1, since} if since is not None else set())
        for version in sorted(v for v in edges if api.low <= v <= api.high):
            request = kio_loader.load_request_schema(api.key, version)
            response = kio_loader.load_response_schema(api.key, version)
            assert kio_loader.request_header(api.key, version) is request.__header_schema__, (
                api,
                version,
            )
            assert (
                kio_loader.flexible_answer(api.key, version)
                is response.__header_schema__.__flexible__
            ), (api, version)


def test_a_schema_loaded_alone_is_the_packages_own() -> None:
    """DescribeUserScramCredentials (50), which kafka-tui never sends: its request loaded
    alone, then its package imported as kio's index would, which must reuse the module."""
    package = "kio.schema.describe_user_scram_credentials.v0"
    assert package not in sys.modules
    alone = kio_loader.load_request_schema(50, 0)
    assert package not in sys.modules
    assert f"{package}.response" not in sys.modules
    __import__(package)
    assert sys.modules[package].DescribeUserScramCredentialsRequest is alone
    assert kio_loader.load_response_schema(50, 0) is (
        sys.modules[package].DescribeUserScramCredentialsResponse
    )
