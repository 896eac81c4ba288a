#!/usr/bin/env python3
"""Links `authphone` again from the objects SwiftPM built for CONFIG (debug or release), with the
Swift runtime and Foundation linked in, as `swift build --static-swift-stdlib` would, and prints
the new binary's path. SwiftPM's own build is left as it was: objects compiled for the shared
runtime link statically too, but a build asked for with --static-swift-stdlib on the same
scratch folder compiles them again, and the next plain build undoes that (a 13-minute build each
way on 2 cores). The link command is SwiftPM's own, read from its build manifest.

  scripts/lib/relink-static.py [debug|release]   (after `swift build -c CONFIG --product authphone`)
"""
import json
import pathlib
import re
import subprocess
import sys

config = sys.argv[1] if len(sys.argv) > 1 else "debug"
root = pathlib.Path(__file__).resolve().parents[2]
bin_path = (root / ".build" / config).resolve()
triple = bin_path.parent.name
manifest = (root / ".build" / f"{config}.yaml").read_text()
command = re.search(rf'^  "C\.authphone-{re.escape(triple)}-{config}\.exe":\n(?:    .*\n)*?    args: (\[.*\])$', manifest, re.M)
if command is None:
    sys.exit(f"no link command for authphone in .build/{config}.yaml: run `swift build -c {config} --product authphone` first")
args = json.loads(command.group(1))
output = root / ".build" / f"static-{config}" / "authphone"
output.parent.mkdir(parents=True, exist_ok=True)
args[args.index("-o") + 1] = str(output)
# The objects name Foundation alone (their modules are the shared ones); its static archive needs
# the rest of Foundation's, in an order a group lets the linker find for itself.
swiftc = pathlib.Path(args[0])
static = swiftc.parents[1] / "lib" / "swift_static" / "linux"
archives = sorted(p.name[3:-2] for p in static.glob("lib*Foundation*.a"))
args[1:1] = ["-static-stdlib"]
args += ["-Xlinker", "--start-group", *(f"-l{name}" for name in archives), "-Xlinker", "--end-group"]
linked = subprocess.run(args, capture_output=True, text=True)
if linked.returncode != 0:
    sys.exit(f"linking {output} failed:\n{linked.stderr[-4000:]}")
print(output)
