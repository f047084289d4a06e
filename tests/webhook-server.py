#!/usr/bin/env python3
"""A webhook receiver for the --notify tests: python3's http.server on
127.0.0.1, an ephemeral port written to PORT_FILE once listening.

Every POST is recorded as DIR/<n>.json (its body) and DIR/<n>.headers
(its headers), n counting from 1 in the order they arrived, then answered
as ANSWERS says: a comma-separated list, one entry per request in order
("500", "200", "hang" = never answer), 200 once the list is used up.
"""
import argparse
import http.server
import os
import threading
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--record-dir", required=True)
    ap.add_argument("--answers", default="")
    args = ap.parse_args()
    answers = [a for a in args.answers.split(",") if a]
    lock = threading.Lock()
    count = [0]

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            with lock:
                count[0] += 1
                n = count[0]
                answer = answers[n - 1] if n <= len(answers) else "200"
            base = os.path.join(args.record_dir, str(n))
            with open(base + ".headers", "w") as f:
                f.write(str(self.headers))
            with open(base + ".json.tmp", "wb") as f:
                f.write(body)
            os.rename(base + ".json.tmp", base + ".json")
            if answer == "hang":
                time.sleep(600)
                return
            self.send_response(int(answer))
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *a):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(srv.server_address[1]))
    os.rename(tmp, args.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    main()
