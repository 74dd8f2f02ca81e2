"""Schema Registry support for records: a REST client for the Confluent Schema Registry API
(Confluent, Apicurio's ccompat, Karapace, Redpanda; client.py), Confluent's wire format
(wire.py), and Avro (fastavro), Protobuf (dynamic messages) and JSON Schema records; local
.avsc / .proto files for topics without a registry. `codec.RecordSchemas` is what services
and front ends decode and encode with. Kept light: a config file's reading imports this."""

from .errors import SchemaError
from .settings import RegistrySettings

__all__ = ["RegistrySettings", "SchemaError"]
