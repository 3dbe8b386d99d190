"""The code under test: a Passportal Documents API v2 client written the way Python integrations
(MSPbots' among them) write theirs: httpx, a token from an HMAC-signed key, renewed before its
``expiry_time`` and once more after a ``401``, pages read until one comes back empty. It knows
nothing about the fake: it gets a base URL (or a region, turned into the vendor's host name)."""

from __future__ import annotations

import hashlib
import hmac
import time
import uuid
from typing import Any, Dict, List, Optional

import httpx


class PassportalError(Exception):
    """An answer other than 2xx: the status and the vendor's message and code."""

    def __init__(self, status: int, body: Dict[str, Any]) -> None:
        super().__init__(f"Passportal API answered {status}: {body.get('message', 'no message')}")
        self.status = status
        self.body = body


class DocumentsClient:
    def __init__(
        self,
        key_id: str,
        secret: str,
        base_url: Optional[str] = None,
        region: str = "us-clover",
        retries: int = 1,
    ) -> None:
        self.base_url = (base_url or f"https://{region}.passportalmsp.com").rstrip("/")
        self.key_id = key_id
        self.secret = secret
        self.retries = retries
        # trust_env: HTTPS_PROXY, SSL_CERT_FILE and the like, as deployed clients read them.
        self.http = httpx.Client(base_url=self.base_url, timeout=30.0)
        self._token: Optional[str] = None
        self._expires = 0.0

    def close(self) -> None:
        self.http.close()

    # --- the API ------------------------------------------------------------------------------

    def list_page(self, page: int, results_per_page: int = 100, **query: Any) -> List[Dict[str, Any]]:
        params = {"pageNum": page, "resultsPerPage": results_per_page, **query}
        return list(self._call("GET", "/api/v2/documents", params=params)["results"])

    def list_all(self, results_per_page: int = 100, **query: Any) -> List[Dict[str, Any]]:
        """Every matching document: the API gives no totals, so pages are read until one is empty."""
        documents: List[Dict[str, Any]] = []
        page = 1
        while True:
            results = self.list_page(page, results_per_page, **query)
            if not results:
                return documents
            documents.extend(results)
            page += 1

    def get_document(self, document_id: int) -> Dict[str, Any]:
        return dict(self._call("GET", f"/api/v2/documents/{document_id}"))

    def set_detail(self, document_id: int, key: str, entry: Dict[str, Any]) -> None:
        """PATCH replaces the template fields: the current entries are read and sent back with one changed."""
        current = self.get_document(document_id)
        details = {k: v for k, v in current["details"].items() if isinstance(v, dict) and "value" in v}
        details[key] = entry
        self._call("PATCH", f"/api/v2/documents/{document_id}", json=details)

    # --- tokens and calls ---------------------------------------------------------------------

    def _access_token(self) -> str:
        if self._token is None or time.time() >= self._expires - 60:
            content = uuid.uuid4().hex
            digest = hmac.new(self.secret.encode(), content.encode(), hashlib.sha256).hexdigest()
            res = self.http.post(
                "/api/v2/auth/client_token",
                headers={"x-key": self.key_id, "x-hash": digest},
                json={"scope": "docs_api", "content": content},
            )
            body = res.json()
            if res.status_code != 200:
                raise PassportalError(res.status_code, body)
            self._token = str(body["access_token"])
            self._expires = float(body["expiry_time"])
        return self._token

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        renewed = False
        attempts = 0
        while True:
            res = self.http.request(method, path, headers={"x-access-token": self._access_token()}, **kwargs)
            if res.status_code == 401 and not renewed:
                self._token = None  # expired or revoked: renew once
                renewed = True
                continue
            if res.status_code in (502, 503, 504) and attempts < self.retries:
                attempts += 1
                time.sleep(0.2 * attempts)
                continue
            body = res.json()
            if res.status_code >= 400:
                raise PassportalError(res.status_code, body)
            return body
