#!/usr/bin/env bash
# Builds one libFuzzer target per decoder of input (the payload forms and a typed OTP), with
# AddressSanitizer, and runs each for a
# bounded time from the seed corpus in Fuzz/corpus/. A crash or a failed round trip fails the run
# and leaves the input that caused it in .build/fuzz/.
#   scripts/fuzz.sh [seconds per target, default 10]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-10}"
out=.build/fuzz
mkdir -p "$out"
rm -f "$out"/crash-* "$out"/leak-*

# NAME:CORPUS:SOURCES (a glob)
for target in "QRText:qr-text:Sources/OutOfBand/*.swift" "DeepLink:deep-link:Sources/OutOfBand/*.swift" \
  "Push:push:Sources/OutOfBand/*.swift" "OTP:otp:Sources/OTP/Crockford32.swift"; do
  IFS=: read -r name corpus sources <<<"$target"
  binary="$out/$name"
  # shellcheck disable=SC2086 # the sources are a glob
  swiftc -sanitize=fuzzer,address -parse-as-library -O $sources "Fuzz/${name}Fuzz.swift" \
    -o "$binary" 2> >(grep -v "Cannot export local symbol" >&2)
  work="$out/$corpus-corpus"
  mkdir -p "$work"
  echo "fuzzing $name for ${seconds}s"
  (cd "$out" && "./$name" -max_total_time="$seconds" -max_len=9000 -print_final_stats=1 \
      "$corpus-corpus" "../../Fuzz/corpus/$corpus" 2>&1 | grep -E "^(Done|stat::number_of_executed_units|==|SUMMARY)|ERROR|panic|Fatal" || true)
  # libFuzzer writes crash-*/leak-*/timeout-* files next to itself when it finds something.
  if compgen -G "$out/crash-*" >/dev/null || compgen -G "$out/leak-*" >/dev/null; then
    echo "$name found a failing input: $(ls "$out"/crash-* "$out"/leak-* 2>/dev/null)" >&2
    exit 1
  fi
done
