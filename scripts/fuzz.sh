#!/usr/bin/env bash
# Builds one libFuzzer target per decoder of input (the payload forms, a typed OTP, an FCM send
# request, strict JSON, the timeline's redaction of a body, a text handed the SMS gateway), with AddressSanitizer, and runs each
# for a bounded time from the seed corpus in Fuzz/corpus/. The gate fails the run when a fuzzer
# does not build, does not start, exits with an error, or leaves a crash-, leak-, timeout- or oom-
# file (kept in .build/fuzz/ to reproduce).
# Before that, a canary target that crashes, hangs or runs out of memory on marker inputs goes
# through the same gate, which must refuse each: a gate that lets them pass stops the run.
#   scripts/fuzz.sh [seconds per target, default 10]
#   scripts/fuzz.sh --canary    only prove the gate
set -euo pipefail
cd "$(dirname "$0")/.."
out=.build/fuzz
mkdir -p "$out"
# Per input: slower than this is a hang, more memory than this an out-of-memory failure.
input_timeout=5
rss_limit_mb=2048

# build NAME OPTIMIZATION SOURCES...: one fuzzer binary; the sources form one module named
# OutOfBand, so that a copied `import OutOfBand` is a harmless no-op.
build() {
  local name=$1 optimization=$2
  shift 2
  rm -f "$out/$name"
  swiftc -sanitize=fuzzer,address -parse-as-library "$optimization" -suppress-warnings -module-name OutOfBand \
    "$@" -o "$out/$name" 2> >(grep -v "Cannot export local symbol" >&2)
}

# library NAME SOURCES...: a module the fuzzers import, as an object and its interface in $out/lib.
library() {
  local name=$1
  shift
  mkdir -p "$out/lib"
  swiftc -sanitize=fuzzer,address -parse-as-library -O -wmo -suppress-warnings -module-name "$name" -emit-module \
    -emit-module-path "$out/lib/$name.swiftmodule" -c "$@" -o "$out/lib/$name.o" 2> >(grep -v "Cannot export local symbol" >&2)
}

# gate NAME SEEDS SECONDS: runs a fuzzer and succeeds only if it ran to its end ("Done") with exit
# status 0 and left no crash-, leak-, timeout- or oom- file.
gate() {
  local name=$1 seeds=$2 seconds=$3 status=0
  local log="$out/$name.log" work="$out/$name-corpus"
  rm -f "$out/$name"-crash-* "$out/$name"-leak-* "$out/$name"-timeout-* "$out/$name"-oom-*
  mkdir -p "$work"
  "$out/$name" -max_total_time="$seconds" -timeout="$input_timeout" -rss_limit_mb="$rss_limit_mb" -max_len=9000 \
    -print_final_stats=1 -artifact_prefix="$out/$name-" "$work" "$seeds" >"$log" 2>&1 || status=$?
  grep -E "^(Done|stat::number_of_executed_units|==|SUMMARY)|ERROR|panic|Fatal" "$log" || true
  local findings
  findings=$(ls "$out/$name"-{crash,leak,timeout,oom}-* 2>/dev/null || true)
  if [[ $status -ne 0 || -n $findings ]] || ! grep -q "^Done" "$log"; then
    echo "$name failed the gate: exit status $status${findings:+, failing inputs: $findings} (log: $log)" >&2
    return 1
  fi
}

# The canary: each marker input must make the gate fail, and so must a fuzzer that cannot start.
canary() {
  echo "canary: the gate must refuse a crash, a hang, an out-of-memory input and a missing fuzzer"
  build Canary -Onone Fuzz/CanaryFuzz.swift
  local marker
  for marker in crash hang oom; do
    mkdir -p "$out/canary-seeds/$marker"
    printf '%s' "$marker" >"$out/canary-seeds/$marker/seed"
    rm -rf "$out/Canary-corpus"
    if input_timeout=1 rss_limit_mb=256 gate Canary "$out/canary-seeds/$marker" 5 >/dev/null 2>&1; then
      echo "canary: the gate let a $marker through" >&2
      exit 1
    fi
  done
  if gate NoSuchFuzzer "$out/canary-seeds/crash" 1 >/dev/null 2>&1; then
    echo "canary: the gate let a fuzzer that does not start through" >&2
    exit 1
  fi
  echo "canary: the gate refused all four"
}

canary
[[ "${1:-}" == "--canary" ]] && exit 0
seconds="${1:-10}"

library StrictJSON Sources/StrictJSON/*.swift
library WireJSON Sources/WireJSON/*.swift
library Identifiers Sources/Identifiers/*.swift

# NAME:CORPUS:SOURCES (globs; the StrictJSON, WireJSON and Identifiers libraries are linked into every target)
for target in "QRText:qr-text:Sources/OutOfBand/*.swift" "DeepLink:deep-link:Sources/OutOfBand/*.swift" \
  "Push:push:Sources/OutOfBand/*.swift" "OTP:otp:Sources/OTP/Crockford32.swift" \
  "FCMSend:fcm-send:Sources/OutOfBand/*.swift Sources/PushService/FCMSendRequest.swift Sources/PushService/FCMSendBody.swift Sources/PushService/FCMPlatformOptions.swift Sources/PushService/KeyedDecodingContainer+Given.swift Sources/PushService/FCMError.swift" \
  "StrictJSON:strict-json:" "Redaction:redaction:Sources/Timeline/Redaction.swift Sources/Timeline/FormRedaction.swift" \
  "Text:text:Sources/SMSGateway/OutgoingText.swift Sources/SMSGateway/SMSError.swift Sources/Phone/Apps/Messages/OneTimeCode.swift"; do
  IFS=: read -r name corpus sources <<<"$target"
  # shellcheck disable=SC2086 # the sources are globs
  build "$name" -O -I "$out/lib" "$out/lib/StrictJSON.o" "$out/lib/WireJSON.o" "$out/lib/Identifiers.o" $sources "Fuzz/${name}Fuzz.swift"
  echo "fuzzing $name for ${seconds}s"
  gate "$name" "Fuzz/corpus/$corpus" "$seconds"
done
