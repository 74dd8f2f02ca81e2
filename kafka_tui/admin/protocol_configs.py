"""DescribeConfigs (32) v4 with synonyms (admin/configs.py), its answer decoded into typed
records: each config goes on with the values its override hides, the first of them being
what the topic has without it. The wire schema is protocol.py's DescribeConfigs v4."""

from __future__ import annotations

from typing import Any, NamedTuple

from aiokafka.protocol.api import Request, RequestStruct, Response

from .protocol import _DESCRIBE_CONFIGS_V4


class ConfigSynonym(NamedTuple):
    name: str
    value: str | None
    source: int  # ConfigSource's codes


class ConfigWithSynonyms(NamedTuple):
    name: str
    value: str | None  # None for sensitive values
    read_only: bool
    config_source: int
    is_sensitive: bool
    synonyms: list[ConfigSynonym]  # the config itself first, then what it hides


class ConfigResourceWithSynonyms(NamedTuple):
    error_code: int
    error_message: str | None
    resource_type: int
    resource_name: str
    configs: list[ConfigWithSynonyms]


class DescribeConfigsWithSynonymsRequest(Request[RequestStruct]):
    """`resources`: (resource type, name); `keys`: None asks for every config."""

    API_KEY = 32

    def __init__(self, resources: list[tuple[int, str]], keys: list[str] | None = None) -> None:
        self.resources = resources
        self.keys = keys

    def build(self, request_struct_class: type[RequestStruct]) -> RequestStruct:
        resources: Any = [(kind, name, self.keys, {}) for kind, name in self.resources]
        return request_struct_class(resources, True, False, {})

    @staticmethod
    def answer(response: Response) -> list[ConfigResourceWithSynonyms]:
        return [
            ConfigResourceWithSynonyms(
                r["error_code"],
                r["error_message"],
                r["resource_type"],
                r["resource_name"],
                [
                    ConfigWithSynonyms(
                        c["name"],
                        c["value"],
                        c["read_only"],
                        c["config_source"],
                        c["is_sensitive"],
                        [
                            ConfigSynonym(s["name"], s["value"], s["source"])
                            for s in c["synonyms"] or []
                        ],
                    )
                    for c in r["configs"] or []
                ],
            )
            for r in response.to_object()["results"] or []
        ]


# Request.__init_subclass__ derives _CLASSES from the generic parameter; ours is protocol.py's.
DescribeConfigsWithSynonymsRequest._CLASSES = (_DESCRIBE_CONFIGS_V4,)
