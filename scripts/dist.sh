#!/usr/bin/env bash
# `make dist`: a release binary with the Swift standard library and Foundation linked in
# (--static-swift-stdlib), Public/ and Templates/ beside it, packed as
# artifacts/dist/authphone-VERSION-linux-ARCH.tar.gz. It still needs the system libraries the
# docs/operating.md lists (libsodium, libqrencode, libzbar, libpng, libturbojpeg, libsqlite3).
set -euo pipefail
cd "$(dirname "$0")/.."
# DIST_CONFIG=debug packs the debug build the tests use instead, its objects linked again with the
# runtime inside (seconds, where building them again takes as long as the build itself).
config=${DIST_CONFIG:-release}
case "$config" in
  release)
    # A scratch folder of its own: objects built with the runtime linked in cannot be linked
    # without it, so they must not mix with the tests' (.build/debug), nor undo `make bench`'s
    # release build.
    scratch=.build/dist
    swift build -c release --static-swift-stdlib --scratch-path "$scratch" --product authphone
    binary=$scratch/release/authphone
    ;;
  debug)
    swift build --product authphone
    binary=$(scripts/lib/relink-static.py debug)
    ;;
  *) echo "DIST_CONFIG is release or debug" >&2; exit 2 ;;
esac
name="authphone-$("$binary" --version)-linux-$(uname -m)"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/$name"
cp "$binary" "$stage/$name/"
cp -R Public Templates "$stage/$name/"
mkdir -p artifacts/dist
tar -C "$stage" -czf "artifacts/dist/$name.tar.gz" "$name"
echo "artifacts/dist/$name.tar.gz"
