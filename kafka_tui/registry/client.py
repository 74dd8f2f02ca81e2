"""A client for the Confluent Schema Registry REST API (Confluent, Apicurio's ccompat API,
Karapace and Redpanda serve it): schemas by id with their references, subject lookups and
registration. Every answer is cached: a record stream asks for the same few ids again and
again. Every failure is a SchemaError of one sentence that names no secret."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from .errors import SchemaError
from .settings import RegistrySettings, shown_url, url_problem

SCHEMA_TYPES = ("AVRO", "PROTOBUF", "JSON")
_CONTENT_TYPE = "application/vnd.schemaregistry.v1+json"


@dataclass(frozen=True)
class Reference:
    name: str
    subject: str
    version: int


@dataclass(frozen=True)
class RegisteredSchema:
    """A schema as the registry holds it: its type (AVRO, PROTOBUF or JSON), its text and
    the schemas it imports (by reference name)."""

    schema_id: int | None
    schema_type: str
    text: str
    references: tuple[Reference, ...] = ()
    subject: str | None = None
    version: int | None = None


class RegistryClient:
    """The REST calls, over one requests Session (thread-safe caches: decoding may run in a
    worker thread)."""

    def __init__(self, settings: RegistrySettings) -> None:
        import requests  # ~40 ms: only when a registry is used

        problem = url_problem(settings.url)
        if problem:
            raise SchemaError(f"the schema registry URL {shown_url(settings.url)} {problem}")
        self.settings = settings
        self.url = settings.url.rstrip("/")
        self.where = shown_url(settings.url)
        self._requests = requests
        self._session = requests.Session()
        self._session.headers["Accept"] = _CONTENT_TYPE
        if settings.token:
            self._session.headers["Authorization"] = f"Bearer {settings.token}"
        elif settings.username is not None:
            self._session.auth = (settings.username, settings.password or "")
        # Given with each request: requests lets REQUESTS_CA_BUNDLE / CURL_CA_BUNDLE win over
        # a Session's own `verify` (seen here: the CA file was ignored on such a machine).
        self._verify: str | bool = settings.ca_file or True
        self._cert: str | tuple[str, str] | None = (
            (settings.cert_file, settings.key_file)
            if settings.cert_file and settings.key_file
            else settings.cert_file
        )
        self._lock = threading.Lock()
        self._by_id: dict[int, RegisteredSchema] = {}
        self._by_version: dict[tuple[str, int], RegisteredSchema] = {}

    def close(self) -> None:
        self._session.close()

    # -- the calls ----------------------------------------------------------------------------

    def schema(self, schema_id: int) -> RegisteredSchema:
        """The schema of `schema_id` (GET /schemas/ids/{id}), cached."""
        with self._lock:
            cached = self._by_id.get(schema_id)
        if cached is not None:
            return cached
        answer = self._call("GET", f"/schemas/ids/{schema_id}", what=f"schema id {schema_id}")
        found = _registered(answer, schema_id)
        with self._lock:
            self._by_id[schema_id] = found
        return found

    def version(self, subject: str, version: int | str = "latest") -> RegisteredSchema:
        """A subject's version (GET /subjects/{subject}/versions/{version}); numbered versions
        are cached (a reference names one), `latest` is asked each time."""
        if isinstance(version, int):
            with self._lock:
                cached = self._by_version.get((subject, version))
            if cached is not None:
                return cached
        answer = self._call(
            "GET",
            f"/subjects/{quote(subject, safe='')}/versions/{version}",
            what=f"subject '{subject}' version {version}",
            subject=subject,
        )
        found = _registered(answer, answer.get("id"))
        if isinstance(version, int):
            with self._lock:
                self._by_version[(subject, version)] = found
        return found

    def lookup(self, subject: str, schema: RegisteredSchema) -> int:
        """The id `schema` has under `subject` (POST /subjects/{subject}); registers nothing."""
        answer = self._call(
            "POST",
            f"/subjects/{quote(subject, safe='')}",
            body=_body(schema),
            what=f"such schema under subject '{subject}' (it is not registered)",
            subject=subject,
        )
        return _schema_id(answer)

    def register(self, subject: str, schema: RegisteredSchema) -> int:
        """Register `schema` under `subject` (POST /subjects/{subject}/versions): its id
        (the same one when the registry already holds it)."""
        answer = self._call(
            "POST",
            f"/subjects/{quote(subject, safe='')}/versions",
            body=_body(schema),
            what=f"a new version of subject '{subject}'",
            subject=subject,
        )
        return _schema_id(answer)

    def subjects(self) -> list[str]:
        answer = self._call("GET", "/subjects", what="the subjects")
        if not isinstance(answer, list):
            raise SchemaError(f"the schema registry at {self.where} answered no list of subjects")
        return [str(s) for s in answer]

    # -- the transport --------------------------------------------------------------------

    def _call(
        self, method: str, path: str, *, what: str, body: Any = None, subject: str | None = None
    ) -> Any:
        errors = self._requests.exceptions
        try:
            response = self._session.request(
                method,
                self.url + path,
                data=None if body is None else json.dumps(body),
                headers={"Content-Type": _CONTENT_TYPE} if body is not None else None,
                timeout=self.settings.timeout_s,
                verify=self._verify,
                cert=self._cert,
            )
        except errors.SSLError:
            raise SchemaError(
                f"TLS with the schema registry at {self.where} failed (check its CA file and "
                "client certificate)"
            ) from None
        except errors.Timeout:
            raise SchemaError(
                f"the schema registry at {self.where} did not answer within "
                f"{self.settings.timeout_s:g} s"
            ) from None
        except errors.ConnectionError:
            raise SchemaError(f"the schema registry at {self.where} cannot be reached") from None
        except (errors.RequestException, OSError) as exc:
            raise SchemaError(
                f"the schema registry at {self.where} cannot be asked ({type(exc).__name__})"
            ) from None
        return self._answer(response, what, f"subject '{subject}'" if subject else None)

    def _answer(self, response: Any, what: str, subject: str | None) -> Any:
        status = response.status_code
        try:
            answer = response.json()
        except ValueError:
            answer = None
        if 200 <= status < 300:
            if answer is None:
                raise SchemaError(
                    f"the schema registry at {self.where} answered {what} with no JSON"
                )
            return answer
        code = answer.get("error_code") if isinstance(answer, dict) else None
        if status == 401:
            raise SchemaError(
                f"the schema registry at {self.where} refused the login (HTTP 401): check the "
                "registry user and password or token"
            )
        if status == 403:
            raise SchemaError(
                f"the schema registry at {self.where} does not allow this login to read "
                f"{what} (HTTP 403)"
            )
        if code == 40401:
            raise SchemaError(f"the schema registry at {self.where} has no {subject or what}")
        if code == 40402:
            raise SchemaError(f"the schema registry at {self.where} has no {what}")
        if code == 40403:
            raise SchemaError(f"the schema registry at {self.where} has no {what}")
        if code in (42201, 42202):
            raise SchemaError(f"the schema registry at {self.where} refused {what}: invalid schema")
        if code == 409 or status == 409:
            raise SchemaError(
                f"the schema registry at {self.where} refused {what}: incompatible with the "
                "subject's earlier versions"
            )
        if status == 404:
            raise SchemaError(
                f"the schema registry at {self.where} has no {what} (HTTP 404: is the URL the "
                "registry's Confluent-compatible API, e.g. .../apis/ccompat/v7 on Apicurio?)"
            )
        detail = answer.get("message") if isinstance(answer, dict) else None
        said = f": {_one_line(str(detail))}" if detail else ""
        raise SchemaError(f"the schema registry at {self.where} answered HTTP {status}{said}")


def _one_line(text: str, limit: int = 200) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def _registered(answer: Any, schema_id: Any) -> RegisteredSchema:
    if not isinstance(answer, dict) or not isinstance(answer.get("schema"), str):
        raise SchemaError("the schema registry answered a schema without its text")
    schema_type = answer.get("schemaType") or "AVRO"
    if schema_type not in SCHEMA_TYPES:
        raise SchemaError(f"the schema registry answered an unknown schema type {schema_type!r}")
    references = []
    for ref in answer.get("references") or ():
        try:
            references.append(Reference(str(ref["name"]), str(ref["subject"]), int(ref["version"])))
        except (KeyError, TypeError, ValueError):
            raise SchemaError("the schema registry answered a malformed schema reference") from None
    return RegisteredSchema(
        schema_id if isinstance(schema_id, int) else None,
        schema_type,
        answer["schema"],
        tuple(references),
        answer.get("subject"),
        answer.get("version"),
    )


def _body(schema: RegisteredSchema) -> dict[str, Any]:
    body: dict[str, Any] = {"schema": schema.text}
    if schema.schema_type != "AVRO":
        body["schemaType"] = schema.schema_type
    if schema.references:
        body["references"] = [
            {"name": r.name, "subject": r.subject, "version": r.version} for r in schema.references
        ]
    return body


def _schema_id(answer: Any) -> int:
    if isinstance(answer, dict) and isinstance(answer.get("id"), int):
        return int(answer["id"])
    raise SchemaError("the schema registry answered without a schema id")
