#!/bin/sh
# Builds and runs one libFuzzer target over the package's decoders.
#
#   Fuzz/run.sh TARGET [SECONDS] [extra libFuzzer flags...]
#
# TARGET: snapshot (shared-file plist -> snapshot), events (transaction / renewal / notification
# JSON and JWS -> engine), catalog (Catalog.json), storekit (.storekit), jws (a line under
# signatures: required, and the same bytes as a certificate and a JWS), link (a peer's byte stream
# on the companion link: frames, handshake, sealed session). SECONDS defaults to 60.
# The StoreKitFormats and Entitlements sources and those of the package modules they use are compiled
# into one module with the target
# (swiftc -sanitize=fuzzer,address). The run is seeded from a scratch copy of Tests/Corpus, so
# the repository is never modified; new inputs and crash artifacts land in .build/fuzz/TARGET/.
# -timeout=60: on a loaded shared machine a 10 s limit reported a 31-byte input that runs in
# 0.1 s alone. Leak detection is on: no input reaches Foundation's property-list code any more
# (it leaked a CFError per malformed XML input), so a leak report is the package's own.
# Exit status: 0 when no crash was found, libFuzzer's non-zero status otherwise.
set -eu
target=${1:?usage: Fuzz/run.sh snapshot|events|catalog|storekit|jws|link [SECONDS] [libFuzzer flags...]}
seconds=${2:-60}
[ $# -ge 2 ] && shift 2 || shift $#
root=$(cd "$(dirname "$0")/.." && pwd)
work=$root/.build/fuzz/$target
mkdir -p "$work/corpus" "$work/artifacts"

case $target in
  snapshot) seeds="$root/Tests/Corpus/shared-files"; max_len=65536 ;;
  events)   seeds="$root/Tests/Corpus/events"; max_len=16384 ;;
  catalog)  seeds="$root/Tests/Corpus/catalogs $root/Shared/Catalog.json"; max_len=16384 ;;
  storekit) seeds="$root/Tests/Corpus/catalogs/storekit $root/Shared/Geko.storekit"; max_len=32768 ;;
  jws)      seeds="$root/Tests/JWSVerificationTests/Vectors/apple $root/Tests/JWSVerificationTests/Vectors/tampered $root/Tests/JWSVerificationTests/Vectors/catalogs/xcode-storekit-testing.cer"; max_len=65536 ;;
  link)     seeds=""; max_len=4096 ;; # no seeds: the comparisons guide libFuzzer to the header
  *) echo "run.sh: unknown target '$target' (snapshot, events, catalog, storekit, jws, link)" >&2; exit 64 ;;
esac

# One module of Entitlements and CompanionLink and every package module they depend on (keep
# this list the closure of their dependencies in Package.swift): their imports of each other are
# dropped so that `package` and internal symbols resolve.
modules="CivilTime PropertyList Cryptography SignedData StoreKitFormats Entitlements CompanionLink"
sources=$work/sources
rm -rf "$sources" && mkdir -p "$sources"
drop_imports=
for module in $modules; do
  drop_imports="$drop_imports -e /^import[[:space:]]$module\$/d"
done
for module in $modules; do
  for file in "$root/Sources/$module"/*.swift; do
    sed $drop_imports "$file" > "$sources/$(basename "$file")"
  done
done
for file in "$root"/Fuzz/FuzzSupport.swift "$root/Fuzz/$target.swift"; do
  sed $drop_imports "$file" > "$sources/$(basename "$file")"
done
if [ -x "$work/$target" ] && diff -rq "$sources" "$work/built" >/dev/null 2>&1; then
  echo "up to date: $work/$target" >&2
else
echo "building $work/$target" >&2
swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name Fuzz -package-name Fuzz "$sources"/*.swift -o "$work/$target" 2>"$work/build.log" \
  || { cat "$work/build.log" >&2; exit 1; }
rm -rf "$work/built" && cp -r "$sources" "$work/built"
fi

# Seed from a scratch copy (the fuzzer writes new inputs into its first corpus directory).
for seed in $seeds; do
  if [ -d "$seed" ]; then find "$seed" -maxdepth 1 -type f -exec cp {} "$work/corpus/" \; ; else cp "$seed" "$work/corpus/"; fi
done
cd "$work"
# jws: no leak check at exit (libFuzzer's per-input leak check stays on). LeakSanitizer reports the
# precomputed tables of the verification keys that the global chain cache and trusted roots still
# hold at exit: a constant 12,800 bytes in 16 allocations after 19 runs as after 300, so nothing
# per input: references it does not recognise (most likely enum tag bits kept in a pointer).
leak_options=detect_leaks=1
[ "$target" = jws ] && leak_options=detect_leaks=1:leak_check_at_exit=0
ASAN_OPTIONS=${ASAN_OPTIONS:-$leak_options} FUZZ_SHARED_DIR="$root/Shared" FUZZ_VECTORS_DIR="$root/Tests/JWSVerificationTests/Vectors" exec "./$target" "$work/corpus" -max_total_time="$seconds" -max_len="$max_len" \
  -rss_limit_mb=2048 -timeout=60 -artifact_prefix="$work/artifacts/" -print_final_stats=1 -detect_leaks=1 "$@"
