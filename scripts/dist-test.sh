#!/usr/bin/env bash
# The release as a user gets it: `make dist`'s archive unpacked in an empty folder, served from
# there (no package beside it), answers with its pages, its static files and /ready; the binary
# needs no Swift runtime library. It packs the tests' debug build, linked again with the runtime
# inside (scripts/lib/relink-static.py, seconds); DIST_CONFIG=release packs the release, as `make
# dist` does, which builds everything again (13 minutes or more on 2 cores from nothing).
set -euo pipefail
cd "$(dirname "$0")/.."
archive=$(DIST_CONFIG=${DIST_CONFIG:-debug} scripts/dist.sh | tail -1)
folder=$(mktemp -d)
pid=""
trap '[[ -n "$pid" ]] && kill "$pid" 2>/dev/null; rm -rf "$folder"' EXIT
tar -C "$folder" -xzf "$archive"
release=$(echo "$folder"/authphone-*)
if ldd "$release/authphone" | grep -q libswift; then
  echo "the release binary links a Swift runtime library:" >&2
  ldd "$release/authphone" >&2
  exit 1
fi
# marks in the unpacked copies: served, they prove the files come from beside the binary (the
# package the binary was built from is still on this machine)
echo "// unpacked release" >>"$release/Public/js/index.js"
echo "<!-- unpacked release -->" >>"$release/Templates/index.mustache"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir "$folder/run"
(cd "$folder/run" && exec "$release/authphone" serve --in-memory --pin-kdf fast --port "$port" >"$folder/server.log" 2>&1) &
pid=$!
python3 - "$port" "$release" <<'PY'
import json, sys, time, urllib.request
base = f"http://127.0.0.1:{sys.argv[1]}"
for _ in range(100):
    try:
        urllib.request.urlopen(base + "/health", timeout=1)
        break
    except OSError:
        time.sleep(0.1)
page = urllib.request.urlopen(base + "/", timeout=5).read().decode()
assert "<h1>Phones</h1>" in page and "<!-- unpacked release -->" in page, page[-300:]
script = urllib.request.urlopen(base + "/js/index.js", timeout=5).read().decode()
assert "renderPhones" in script and "// unpacked release" in script
ready = json.load(urllib.request.urlopen(base + "/ready", timeout=5))
assert ready["status"] == "ready" and sys.argv[2].endswith(ready["version"] + "-linux-" + __import__("platform").machine()), ready
print("dist test: the unpacked release serves its pages,", ready["version"])
PY
