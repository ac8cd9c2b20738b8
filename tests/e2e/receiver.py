#!/usr/bin/env python3
"""receiver.py - a stand-in for a continuous-profiling server, for the push
tests: neither Grafana Pyroscope nor Parca can be installed here (they are
in neither Debian's archive nor npm), so this receiver, on 127.0.0.1 only,
checks each request against the server's published API and keeps what it
received.

    receiver.py DIR --server=pyroscope|parca [--port=N] [--status=CODE]
                [--auth=USER:PASSWORD] [--token=T] [--delay-first=SECONDS]

Listens on 127.0.0.1:N (0, the default: any free port; the port is written
to DIR/port once listening).  For each request it appends one JSON line to
DIR/requests.jsonl: {"ok": true/false, "problems": [...], "from", "until",
"name", "labels": {...}, "body": "DIR/NNN.pb.gz", "target": the request's
path and query as sent, "key": its Idempotency-Key header}, and answers
200 (the request was right, and --status is not given), --status (e.g.
400 or 500) with the body "test refusal: status CODE\\nsecond line", or
400 with the problems when the request breaks the API.  As a proxy in
front of a server might: --auth requires HTTP basic authentication with
that user and password, --token a query key token=T before the API's
own (both answered 401 when missing, the answer quoting what came).
--delay-first holds the first request that long before answering, as a
slow server does.

Pyroscope's ingest API
(https://grafana.com/docs/pyroscope/latest/configure-server/about-server-api/):
POST /ingest; query name (required: APP{k=v,...}), from and until
(required, unix seconds), format (pprof), and the optional sampleRate,
spyName, units, aggregationType; the body the profile, whose Content-Type
may say its format (binary/octet-stream for a raw pprof).

Parca's WriteRaw (parca/profilestore/v1alpha1/profilestore.proto, served
by Parca's gRPC gateway under /api): POST /api/profiles/writeraw, JSON
(Content-Type application/json) {"series": [{"labels": {"labels": [{"name",
"value"}, ...]}, "samples": [{"rawProfile": base64}]}]}, with a __name__
label.

Either way the profile must be gzip'd profile.proto (the test decodes it
with go tool pprof).
"""
import base64, binascii, http.server, json, os, re, sys, time, urllib.parse

LABEL = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
PYROSCOPE_KEYS = {"name", "from", "until", "format", "sampleRate", "spyName", "units", "aggregationType"}


def pyroscope(req, url, body, problems, rec):
    if url.path != "/ingest":
        problems.append("path %s is not /ingest" % url.path)
    q = urllib.parse.parse_qs(url.query, keep_blank_values=True)
    q.pop("token", None)        # the proxy's (--token), checked apart
    for k, v in q.items():
        if k not in PYROSCOPE_KEYS:
            problems.append("unknown query key %s" % k)
        if len(v) != 1:
            problems.append("query key %s given %d times" % (k, len(v)))
    for k in ("name", "from", "until"):
        if k not in q:
            problems.append("no %s (required)" % k)
    if q.get("format", [""])[0] != "pprof":
        problems.append("format is %r, not pprof" % q.get("format"))
    ct = req.headers.get("Content-Type", "")
    if ct not in ("binary/octet-stream", "application/octet-stream"):
        problems.append("Content-Type %r is not a raw profile's" % ct)
    try:
        rec["from"], rec["until"] = int(q["from"][0]), int(q["until"][0])
        if rec["from"] > rec["until"]:
            problems.append("from after until")
    except (KeyError, ValueError):
        problems.append("from/until are not unix seconds")
    name = q.get("name", [""])[0]
    rec["name"] = name
    m = re.match(r"^([^{}]+)\{(.*)\}$", name)
    if not m:
        problems.append("name %r is not APP{labels}" % name)
    else:
        rec["app"] = m.group(1)
        for kv in m.group(2).split(",") if m.group(2) else []:
            k, eq, v = kv.partition("=")
            if not eq or not LABEL.match(k) or not v or re.search(r"[{}=,]", v):
                problems.append("label %r is not k=v" % kv)
            rec["labels"][k] = v
    return body


def parca(req, url, body, problems, rec):
    if url.path != "/api/profiles/writeraw":
        problems.append("path %s is not /api/profiles/writeraw" % url.path)
    if url.query:
        problems.append("a query %r (WriteRaw takes none)" % url.query)
    if req.headers.get("Content-Type", "") != "application/json":
        problems.append("Content-Type %r is not application/json" % req.headers.get("Content-Type"))
    try:
        j = json.loads(body)
        series = j["series"]
        if len(series) != 1 or len(series[0]["samples"]) != 1:
            problems.append("not one series with one sample")
        for l in series[0]["labels"]["labels"]:
            if not LABEL.match(l["name"]):
                problems.append("label name %r" % l["name"])
            rec["labels"][l["name"]] = l["value"]
        if "__name__" not in rec["labels"]:
            problems.append("no __name__ label")
        return base64.b64decode(series[0]["samples"][0]["rawProfile"], validate=True)
    except (ValueError, KeyError, TypeError, IndexError, binascii.Error) as e:
        problems.append("not a WriteRawRequest: %s" % e)
        return b""


def unauthorized(req, url):
    """What a proxy requiring --auth or --token finds wrong, or None."""
    srv = req.server
    if srv.auth:
        want = "Basic " + base64.b64encode(srv.auth.encode()).decode()
        if req.headers.get("Authorization") != want:
            return "no basic authentication as %s (got %r)" % (srv.auth.split(":")[0],
                                                               req.headers.get("Authorization"))
    if srv.token:
        first = url.query.split("&")[0]
        if first != "token=" + srv.token:
            return "no token first in the query (got %r)" % req.path
    return None


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        d = self.server.dir
        url = urllib.parse.urlsplit(self.path)
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n)
        problems, rec = [], {"labels": {}, "target": self.path, "key": self.headers.get("Idempotency-Key")}
        if self.server.delay and self.server.count == 0:
            time.sleep(self.server.delay)
        denied = unauthorized(self, url)
        if denied:
            self.server.count += 1
            rec.update(ok=False, problems=[denied], status=401)
            with open(os.path.join(d, "requests.jsonl"), "a") as f:
                f.write(json.dumps(rec) + "\n")
            self.answer(401, "unauthorized: " + denied)
            return
        if self.headers.get("Transfer-Encoding"):
            problems.append("chunked body")
        prof = (parca if self.server.kind == "parca" else pyroscope)(self, url, body, problems, rec)
        if prof[:2] != b"\x1f\x8b":
            problems.append("the profile is not gzip'd")
        self.server.count += 1
        path = os.path.join(d, "%03d.pb.gz" % self.server.count)
        with open(path, "wb") as f:
            f.write(prof)
        rec.update(ok=not problems, problems=problems, body=path, status=self.server.status or 200)
        with open(os.path.join(d, "requests.jsonl"), "a") as f:
            f.write(json.dumps(rec) + "\n")
        if problems:
            self.answer(400, "; ".join(problems))
        elif self.server.status:
            self.answer(self.server.status, "test refusal: status %d\nsecond line" % self.server.status)
        else:
            self.answer(200, "{}" if self.server.kind == "parca" else "")

    def do_GET(self):
        self.answer(405, "POST only")

    def answer(self, status, text):
        data = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    opts = dict(a[2:].split("=", 1) for a in sys.argv[2:] if a.startswith("--") and "=" in a)
    http.server.HTTPServer.allow_reuse_address = True
    srv = http.server.HTTPServer(("127.0.0.1", int(opts.get("port", "0"))), Handler)
    srv.dir, srv.kind = sys.argv[1], opts.get("server", "pyroscope")
    srv.status, srv.count = int(opts.get("status", "0")), 0
    srv.auth, srv.token = opts.get("auth"), opts.get("token")
    srv.delay = float(opts.get("delay-first", "0"))
    with open(os.path.join(srv.dir, "port.tmp"), "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(os.path.join(srv.dir, "port.tmp"), os.path.join(srv.dir, "port"))
    srv.serve_forever()


if __name__ == "__main__":
    main()
