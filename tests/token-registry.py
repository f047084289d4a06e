#!/usr/bin/env python3
"""A registry that wants bearer tokens, for the tests (no real token server
runs here): a token issuer on /token (Basic auth with the test credentials,
as Docker's token servers take them) and, on /v2/, a proxy to the plain
loopback registry that answers 401 with a Bearer challenge unless the
request carries a token it issued. Page size of tags/list is forced to
--page so the client's Link pagination is exercised.

Without --user and --password it asks for nothing: a plain proxy. With
--hold-blobs an engine's GET of a blob (any client but this tool's registry
client, whose User-Agent starts with "hrr-docker-replay") is held open
without an answer until the proxy is killed: a pull that never ends.

  token-registry.py --port P --upstream 127.0.0.1:5000 [--user U --password W]
                    [--hold-blobs]
Prints "listening <port>" once it accepts connections (port 0 picks one).
"""
import argparse
import base64
import http.client
import http.server
import json
import re
import secrets
import sys
import threading
import urllib.parse

ARGS = None
TOKENS = set()
COUNTS = {"token": 0, "v2": 0}
HELD = threading.Event()  # never set: a held request waits for the kill


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def _send(self, code, body=b"", headers=None):
        self.send_response(code)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _token(self):
        COUNTS["token"] += 1
        want = "Basic " + base64.b64encode(
            f"{ARGS.user}:{ARGS.password}".encode()).decode()
        if self.headers.get("Authorization") != want:
            return self._send(401, b'{"errors":[{"code":"UNAUTHORIZED"}]}',
                              {"Content-Type": "application/json"})
        tok = secrets.token_hex(16)
        TOKENS.add(tok)
        body = json.dumps({"token": tok, "access_token": tok, "expires_in": 300}).encode()
        return self._send(200, body, {"Content-Type": "application/json"})

    def _challenge(self):
        m = re.match(r"/v2/(.+?)/(tags|manifests|blobs)/", self.path)
        scope = f',scope="repository:{m.group(1)}:pull"' if m else ""
        realm = f"http://127.0.0.1:{self.server.server_address[1]}/token"
        return self._send(401, b'{"errors":[{"code":"UNAUTHORIZED"}]}', {
            "Content-Type": "application/json",
            "WWW-Authenticate": f'Bearer realm="{realm}",service="hrr-test"{scope}',
            "Docker-Distribution-API-Version": "registry/2.0",
        })

    def _proxy(self):
        COUNTS["v2"] += 1
        auth = self.headers.get("Authorization", "")
        if ARGS.user and (not auth.startswith("Bearer ") or auth[7:] not in TOKENS):
            return self._challenge()
        if (ARGS.hold_blobs and self.command == "GET" and "/blobs/" in self.path
                and not self.headers.get("User-Agent", "").startswith("hrr-docker-replay")):
            HELD.wait()
            return None
        path = self.path
        if "/tags/list" in path:
            u = urllib.parse.urlsplit(path)
            q = dict(urllib.parse.parse_qsl(u.query))
            q["n"] = str(ARGS.page)
            path = u.path + "?" + urllib.parse.urlencode(q)
        conn = http.client.HTTPConnection(ARGS.upstream, timeout=60)
        hdrs = {k: v for k, v in self.headers.items()
                if k.lower() in ("accept", "range")}
        conn.request(self.command, path, headers=hdrs)
        r = conn.getresponse()
        body = r.read()
        out = {}
        for k, v in r.getheaders():
            if k.lower() in ("content-type", "docker-content-digest", "link",
                             "docker-distribution-api-version", "etag"):
                out[k] = v
        loc = r.getheader("Location")
        if loc:
            out["Location"] = loc.replace(f"http://{ARGS.upstream}", "")
        conn.close()
        return self._send(r.status, body, out)

    def do_GET(self):
        if self.path.startswith("/token"):
            return self._token()
        if self.path.startswith("/counts"):
            return self._send(200, json.dumps(COUNTS).encode())
        if self.path.startswith("/v2/"):
            return self._proxy()
        return self._send(404)

    do_HEAD = do_GET


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--upstream", required=True)
    p.add_argument("--user")
    p.add_argument("--password")
    p.add_argument("--page", type=int, default=5)
    p.add_argument("--hold-blobs", action="store_true")
    ARGS = p.parse_args()
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", ARGS.port), Handler)
    srv.daemon_threads = True
    print(f"listening {srv.server_address[1]}", flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
