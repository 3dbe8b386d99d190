"""A client pinned to the vendor's host, as a team's Python code is: plain `requests`, the base URL
unchanged, TLS verification on. The proxy and the CA come from the environment only
(HTTPS_PROXY, REQUESTS_CA_BUNDLE), as they would in a CI job pointing it at the fake.

Gets a token, lists, reads and patches one document, reads it back; prints what it saw as JSON.
"""
import hashlib
import hmac
import json
import os
import sys
import uuid

import requests

base = os.environ["BASE_URL"]
key_id = os.environ["KEY_ID"]
secret = os.environ["KEY_SECRET"]
document_id = int(os.environ["DOCUMENT_ID"])
mark = os.environ["MARK"]

content = str(uuid.uuid4())
digest = hmac.new(secret.encode(), content.encode(), hashlib.sha256).hexdigest()
token_res = requests.post(
    f"{base}/api/v2/auth/client_token",
    headers={"x-key": key_id, "x-hash": digest},
    json={"scope": "docs_api", "content": content},
    timeout=20,
)
token_res.raise_for_status()
headers = {"x-access-token": token_res.json()["access_token"]}

listed = requests.get(f"{base}/api/v2/documents", params={"resultsPerPage": 5}, headers=headers, timeout=20)
read = requests.get(f"{base}/api/v2/documents/{document_id}", headers=headers, timeout=20)
entry = {"name": "Address 1", "description": "", "value": {"type": "string", "text": mark}}
patched = requests.patch(
    f"{base}/api/v2/documents/{document_id}", headers=headers, json={"address_1": entry}, timeout=20
)
after = requests.get(f"{base}/api/v2/documents/{document_id}", headers=headers, timeout=20)

json.dump(
    {
        "token": token_res.status_code,
        "list": [listed.status_code, len(listed.json()["results"])],
        "read": [read.status_code, read.json()["templateUid"]],
        "patch": [patched.status_code, patched.json()],
        "after": after.json()["details"]["address_1"]["value"]["text"],
    },
    sys.stdout,
)
