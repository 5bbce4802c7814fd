"""A callback endpoint: verifies the signature over the raw body, then records
the event (here: one JSON line appended to $CALLBACK_LOG) and answers 200.
Run: python3 callback.py PORT"""
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from stablegate import verify_callback

API_KEY = os.environ["STABLEGATE_API_KEY"]
LOG = os.environ.get("CALLBACK_LOG", "callbacks.log")


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))  # bytes as received
        if not verify_callback(raw, self.headers, API_KEY):
            self.send_response(401)
            self.end_headers()
            self.wfile.write(b"bad signature")
            return
        event = json.loads(raw.decode("utf-8"))
        # Update the order by orderNo idempotently: deliveries may repeat.
        with open(LOG, "a", encoding="utf-8") as f:
            f.write(json.dumps(event, ensure_ascii=False) + "\n")
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"ok")

    def do_GET(self):  # health probe
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
