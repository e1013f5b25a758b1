#!/usr/bin/env bash
# layering_planted — scripts/check-layers passes on the tree as it is, and
# fails on each include the transport's rooms must not make, planted in a
# copy: the cache into admission, admission into a wire header, the cache
# into <curl/curl.h>, and the last two through a header (a public one, a
# core one) rather than directly.
#
#   test/layering_planted.sh <source dir>   exit 0 when every verdict is right
set -euo pipefail
src=$(cd "${1:?usage: layering_planted.sh <source dir>}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0

fresh() {  # a copy of what check-layers reads
  rm -rf "$tmp/tree" && mkdir "$tmp/tree"
  cp -r "$src/scripts" "$src/cmake" "$src/src" "$src/include" "$tmp/tree/"
}
# plant <file> <include line> <what check-layers must say>
plant() {
  fresh
  sed -i "1i $2" "$tmp/tree/$1"
  local out
  if out=$("$tmp/tree/scripts/check-layers" 2>&1); then
    echo "FAIL: check-layers passed with $2 in $1"; bad=1
  elif ! grep -qF -- "$3" <<<"$out"; then
    echo "FAIL: $2 in $1: check-layers failed without saying \"$3\":"; echo "$out"; bad=1
  else
    echo "ok: $2 in $1 fails: $(grep -F -- "$3" <<<"$out" | head -1)"
  fi
}

fresh
if "$tmp/tree/scripts/check-layers" >/dev/null; then echo "ok: the tree as it is passes"; else
  echo "FAIL: check-layers fails on the unplanted tree"; bad=1
fi
plant src/transport/cache/cache_key.cc '#include "transport/admission/admission.h"' \
  'cache includes transport/admission/admission.h (admission is not below cache)'
plant src/transport/admission/lane_gates.cc '#include "transport/hop.h"' \
  'admission includes transport/hop.h (transport is not below admission)'
plant src/transport/cache/keyed_hash.cc '#include <curl/curl.h>' \
  'src/transport/cache/keyed_hash.cc: cache reaches <curl/curl.h>'
plant include/forgemeter/rate_limits.h '#include "forgemeter/transport.h"' \
  'include/forgemeter/rate_limits.h: admission includes forgemeter/transport.h'
plant src/core/mutex.h '#include <curl/curl.h>' \
  'src/transport/admission/lane_gates.cc: admission reaches <curl/curl.h>'
exit "$bad"
