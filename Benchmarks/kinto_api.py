"""The few Kinto HTTP calls the harness itself makes (seeding checks, server-side edits).

Standard library only; one persistent loopback connection per account. The
clients under test never use this: they bring their own HTTP stacks.
"""
from __future__ import annotations

import base64
import http.client
import json
import urllib.parse

BATCH_LIMIT = 25  # kinto.batch_max_requests in Fixtures/kinto/kinto-basicauth.ini


class KintoAPIError(RuntimeError):
    pass


class Account:
    """A user:password pair; any pair is a valid account on the Basic-auth server."""

    def __init__(self, user: str, password: str) -> None:
        self.user = user
        self.password = password

    @property
    def authorization(self) -> str:
        return "Basic " + base64.b64encode(f"{self.user}:{self.password}".encode()).decode()

    def __repr__(self) -> str:  # never print the password
        return f"Account({self.user!r})"


class KintoAPI:
    def __init__(self, root_url: str, account: Account) -> None:
        parsed = urllib.parse.urlsplit(root_url)
        self.host, self.port = parsed.hostname, parsed.port
        self.account = account
        self._conn: http.client.HTTPConnection | None = None

    # MARK: - Requests

    def request(self, method: str, path: str, body=None, headers: dict | None = None,
                expect: tuple = (200, 201)) -> tuple[int, dict, bytes]:
        """One request to `path` (absolute `/v1/...` or a full Next-Page URL)."""
        if path.startswith("http"):
            parsed = urllib.parse.urlsplit(path)
            path = parsed.path + ("?" + parsed.query if parsed.query else "")
        data = None if body is None else json.dumps(body).encode()
        all_headers = {"Authorization": self.account.authorization, "Accept": "application/json"}
        if data is not None:
            all_headers["Content-Type"] = "application/json"
        all_headers.update(headers or {})
        for attempt in (1, 2):
            conn = self._connection()
            try:
                conn.request(method, path, body=data, headers=all_headers)
                response = conn.getresponse()
                payload = response.read()
                break
            except (http.client.HTTPException, ConnectionError):
                # A kept-alive connection the server closed: reconnect once.
                self.close()
                if attempt == 2:
                    raise
        response_headers = {k.lower(): v for k, v in response.getheaders()}
        if response.status not in expect:
            raise KintoAPIError(f"{method} {path.split('?')[0]}: HTTP {response.status} {payload[:300]!r}")
        return response.status, response_headers, payload

    def json(self, method: str, path: str, body=None, **kwargs):
        _, _, payload = self.request(method, path, body, **kwargs)
        return json.loads(payload) if payload else None

    def batch(self, requests: list[dict]) -> list[dict]:
        """POST /v1/batch in chunks of 25; raises on any failed sub-request."""
        responses = []
        for start in range(0, len(requests), BATCH_LIMIT):
            result = self.json("POST", "/v1/batch", {"requests": requests[start:start + BATCH_LIMIT]})
            bad = [r for r in result["responses"] if r["status"] >= 400]
            if bad:
                raise KintoAPIError(f"batch sub-request failed: {bad[0]['status']} {str(bad[0]['body'])[:300]}")
            responses += result["responses"]
        return responses

    # MARK: - Collections

    def records_path(self, bucket: str, collection: str) -> str:
        return f"/v1/buckets/{bucket}/collections/{collection}/records"

    def total_records(self, bucket: str, collection: str) -> int:
        """Kinto's count, from the Total-Records header of a HEAD (GET has none)."""
        _, headers, _ = self.request("HEAD", self.records_path(bucket, collection))
        return int(headers["total-records"])

    def count_by_paging(self, bucket: str, collection: str, limit: int) -> tuple[int, int]:
        """Page through the whole collection as a client would: (records, pages)."""
        path = f"{self.records_path(bucket, collection)}?_limit={limit}"
        count = pages = 0
        while path:
            _, headers, payload = self.request("GET", path)
            count += len(json.loads(payload)["data"])
            pages += 1
            path = headers.get("next-page")
        return count, pages

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _connection(self) -> http.client.HTTPConnection:
        if self._conn is None:
            self._conn = http.client.HTTPConnection(self.host, self.port, timeout=120)
        return self._conn
