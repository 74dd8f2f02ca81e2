"""Schema Registry support for records: a REST client for the Confluent Schema Registry API
(Confluent, Apicurio's ccompat, Karapace, Redpanda), Confluent's wire format, and Avro
(fastavro), Protobuf (dynamic messages) and JSON Schema records; local .avsc / .proto files
for topics without a registry. `RecordSchemas` is what front ends and services decode and
encode with."""

from .client import RegisteredSchema, RegistryClient, RegistrySettings
from .codec import FORMATS, LocalSchema, RecordSchemas
from .errors import SchemaError

__all__ = [
    "FORMATS",
    "LocalSchema",
    "RecordSchemas",
    "RegisteredSchema",
    "RegistryClient",
    "RegistrySettings",
    "SchemaError",
]
