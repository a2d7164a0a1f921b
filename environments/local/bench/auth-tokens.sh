#!/usr/bin/env bash
# The benches' bearer-JWT issuer (auth-cost.sh, bench-ladder.sh BENCH_LADDER_AUTH=...,jwt): sourced.
#
#   . environments/local/bench/auth-tokens.sh
#   bench_auth_tokens <dir> <callers>   # <dir>/jwks.json (an RSA-2048 key) and <dir>/tokens.txt (one token
#                                       # per caller, valid 2 h, scope vigil.evaluate: AuthTokens.java)
#   bench_jwt_engine_env <dir>          # the engine's settings for bearer JWT against that JWKS file,
#                                       # NAME=value lines (for env, or export)
BENCH_JWT_ISSUER=https://issuer.bench.vigil
BENCH_JWT_AUDIENCE=vigil-engine
BENCH_JWT_SCOPE=vigil.evaluate

bench_auth_tokens() {
  local dir=$1 callers=$2 root m2 jose slf4j java_home
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
  m2=${M2:-$HOME/.m2/repository}
  jose=$(ls "$m2"/org/bitbucket/b_c/jose4j/*/jose4j-*.jar 2>/dev/null | sort -V | tail -1)
  slf4j=$(ls "$m2"/org/slf4j/slf4j-api/2.*/slf4j-api-2.*.jar 2>/dev/null | sort -V | tail -1)
  [ -n "$jose" ] && [ -n "$slf4j" ] || { echo "bench_auth_tokens: jose4j or slf4j-api not in $m2 (build the engine first)" >&2; return 1; }
  java_home=${JAVA_HOME:-$("$root/environments/local/bin/java-home.sh")}
  mkdir -p "$dir"
  "$java_home/bin/java" -cp "$jose:$slf4j" "$root/environments/local/bench/AuthTokens.java" "$dir" "$callers" \
    "$BENCH_JWT_ISSUER" "$BENCH_JWT_AUDIENCE"
}

bench_jwt_engine_env() {
  printf '%s\n' VIGIL_AUTH_DATA_JWT_ENABLED=true "VIGIL_AUTH_DATA_REQUIRED_SCOPE=$BENCH_JWT_SCOPE" \
    "VIGIL_AUTH_JWT_JWKS_FILE=$1/jwks.json" "VIGIL_AUTH_JWT_ISSUER=$BENCH_JWT_ISSUER" "VIGIL_AUTH_JWT_AUDIENCE=$BENCH_JWT_AUDIENCE"
}
