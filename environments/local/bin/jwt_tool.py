#!/usr/bin/env python3
"""Signed JWTs and a JWKS for the local attacker-style probe (auth-probe.sh), with openssl doing the RSA
work: python3 here may lack the `cryptography` package, and openssl is always there.

  jwt_tool.py jwks KEY.pem:KID [KEY.pem:KID ...]      the public keys as a JWKS (RSA, use sig, RS256)
  jwt_tool.py token --key KEY.pem --kid KID [--iss ISS] [--aud AUD] [--scope S] [--exp-in SECONDS]
                    [--alg RS256|none] [--pad BYTES] [--tamper]
      a compact JWS: exp = now + exp-in (negative: expired), a jti of its own (a new token each time,
      so the engine verifies it rather than answering from its cache); --pad adds a claim of that
      many characters (a token too large); --tamper changes one byte of the signature.
"""
import argparse
import base64
import json
import secrets
import subprocess
import sys
import time


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def modulus(key_pem: str) -> bytes:
    out = subprocess.run(["openssl", "rsa", "-in", key_pem, "-noout", "-modulus"], check=True,
                         capture_output=True, text=True).stdout.strip()
    return bytes.fromhex(out.split("=", 1)[1])


def jwks(pairs):
    keys = []
    for pair in pairs:
        key_pem, kid = pair.rsplit(":", 1)
        keys.append({"kty": "RSA", "use": "sig", "alg": "RS256", "kid": kid,
                     "n": b64url(modulus(key_pem)), "e": b64url((65537).to_bytes(3, "big"))})
    return json.dumps({"keys": keys})


def sign(key_pem: str, signing_input: bytes) -> bytes:
    return subprocess.run(["openssl", "dgst", "-sha256", "-sign", key_pem], input=signing_input, check=True,
                          capture_output=True).stdout


def token(a) -> str:
    now = int(time.time())
    header = {"alg": a.alg, "typ": "JWT", "kid": a.kid}
    claims = {"iss": a.iss, "aud": a.aud, "sub": "auth-probe", "iat": now, "exp": now + a.exp_in,
              "jti": secrets.token_hex(8)}
    if a.scope:
        claims["scope"] = a.scope
    if a.pad:
        claims["pad"] = "x" * a.pad
    signing_input = (b64url(json.dumps(header, separators=(",", ":")).encode())
                     + "." + b64url(json.dumps(claims, separators=(",", ":")).encode()))
    if a.alg == "none":
        return signing_input + "."
    signature = bytearray(sign(a.key, signing_input.encode("ascii")))
    if a.tamper:
        signature[len(signature) // 2] ^= 0x01
    return signing_input + "." + b64url(bytes(signature))


def main(argv):
    p = argparse.ArgumentParser(prog="jwt_tool.py")
    sub = p.add_subparsers(dest="command", required=True)
    j = sub.add_parser("jwks")
    j.add_argument("keys", nargs="+", help="KEY.pem:KID")
    t = sub.add_parser("token")
    t.add_argument("--key", required=True)
    t.add_argument("--kid", required=True)
    t.add_argument("--iss", default="https://issuer.vigil.local")
    t.add_argument("--aud", default="vigil-engine")
    t.add_argument("--scope", default="")
    t.add_argument("--exp-in", type=int, default=600)
    t.add_argument("--alg", default="RS256", choices=["RS256", "none"])
    t.add_argument("--pad", type=int, default=0)
    t.add_argument("--tamper", action="store_true")
    a = p.parse_args(argv)
    print(jwks(a.keys) if a.command == "jwks" else token(a))


if __name__ == "__main__":
    main(sys.argv[1:])
