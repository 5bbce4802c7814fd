"""Signed requests and callback verification for the stablegate merchant API.
Standard library only (Python 3.8+). Copy this file into your project."""
import hashlib
import hmac
import json
import secrets
import time
import urllib.error
import urllib.parse
import urllib.request


def canonical_json(body) -> str:
    # sort_keys at every depth, no spaces (the default separators add them),
    # non-ASCII raw (the default ensure_ascii=True writes \u00e9 escapes).
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _encode(s) -> str:
    # JavaScript's encodeURIComponent: quote() would leave "/" alone by default.
    return urllib.parse.quote(str(s), safe="-_.!~*'()")


def canonical_query(params) -> str:
    pairs = []
    for k, v in (params or {}).items():
        for item in v if isinstance(v, (list, tuple)) else [v]:
            if item is None or item == "":
                continue
            pairs.append((str(k), "true" if item is True else "false" if item is False else str(item)))
    # Sorted by key, then value. Python compares code points, JavaScript UTF-16
    # code units: they differ only for keys mixing U+E000-U+FFFF with emoji.
    pairs.sort()
    return "&".join(f"{_encode(k)}={_encode(v)}" for k, v in pairs)


class ApiError(Exception):
    def __init__(self, status, body):
        self.status = status
        self.code = body.get("code")
        self.data = body.get("data")
        self.request_id = body.get("requestId")
        super().__init__(f"{status} {self.code} {body.get('message')} (requestId {self.request_id})")


class Client:
    def __init__(self, base_url, merchant_uid, api_key):
        self.base_url = base_url.rstrip("/")
        self.merchant_uid = merchant_uid.strip()
        self.api_key = api_key.strip()

    def request(self, method, path, query=None, body=None):
        """path is sent and signed as given: percent-encode path segments yourself."""
        qs = canonical_query(query)
        text = canonical_json(body) if method == "POST" else ""
        ts = str(int(time.time() * 1000))
        nonce = secrets.token_hex(16)
        signed = "\n".join([self.merchant_uid, ts, nonce, method, path, qs, text])
        sig = hmac.new(self.api_key.encode(), signed.encode("utf-8"), hashlib.sha256).hexdigest()
        headers = {
            "x-api-key": self.api_key,
            "x-merchant-uid": self.merchant_uid,
            "x-timestamp": ts,
            "x-nonce": nonce,
            "x-signature": sig,
            "accept": "application/json",
        }
        data = None
        if method == "POST":
            headers["content-type"] = "application/json"
            data = text.encode("utf-8")  # send exactly the signed text
        url = self.base_url + path + ("?" + qs if qs else "")
        req = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=30) as res:
                return res.status, json.loads(res.read().decode("utf-8"))
        except urllib.error.HTTPError as e:
            raise ApiError(e.code, json.loads(e.read().decode("utf-8") or "{}"))


def verify_callback(raw_body: bytes, headers, api_key: str) -> bool:
    """headers: any mapping with case-insensitive get (http.server, Flask, Django's request.headers)."""
    ts = headers.get("x-callback-timestamp") or ""
    nonce = headers.get("x-callback-nonce") or ""
    sig = headers.get("x-callback-signature") or ""
    if not ts.isdigit() or not nonce or not sig:
        return False
    mac = hmac.new(api_key.strip().encode(), f"{ts}.{nonce}.".encode() + raw_body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(mac.encode(), sig.encode())
