#!/usr/bin/env python3
"""Makes the grant test fixtures in this directory with `openssl` (run it here; it overwrites).

keys/grant-key.pem and keys/other-key.pem are fresh P-256 private keys (test data only: they
sign nothing outside these tests). grant-key.pub.pem / grant-key.pub.der and other-key.pub.pem
are their public keys (`openssl ec -pubout`). Each *.jws file is one JWS compact line: header
{"alg": "ES256", "kid": KID}, the payload below, and the ES256 signature (`openssl dgst -sha256
-sign`, converted from DER to raw r || s).
"""
import base64, json, os, subprocess, sys

def run(*args, data=None):
    return subprocess.run(args, input=data, capture_output=True, check=True).stdout

def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

def raw_signature(der):
    # ECDSA-Sig-Value: SEQUENCE { INTEGER r, INTEGER s } -> 32-byte r || 32-byte s.
    assert der[0] == 0x30
    index = 2 if der[1] < 0x80 else 3
    out = b""
    for _ in range(2):
        assert der[index] == 0x02
        length = der[index + 1]
        value = der[index + 2:index + 2 + length].lstrip(b"\0")
        out += value.rjust(32, b"\0")
        index += 2 + length
    return out

def sign(payload, kid, key):
    header = b64url(json.dumps({"alg": "ES256", "kid": kid}, separators=(",", ":")).encode())
    body = b64url(json.dumps(payload, separators=(",", ":"), sort_keys=True).encode())
    signing_input = f"{header}.{body}".encode()
    der = run("openssl", "dgst", "-sha256", "-sign", key, data=signing_input)
    return f"{header}.{body}.{b64url(raw_signature(der))}"

def ms(iso):
    from datetime import datetime
    return int(datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() * 1000)

os.makedirs("keys", exist_ok=True)
for name in ("grant-key", "other-key"):
    run("openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", f"keys/{name}.pem")
    run("openssl", "ec", "-in", f"keys/{name}.pem", "-pubout", "-out", f"{name}.pub.pem")
run("openssl", "ec", "-in", "keys/grant-key.pem", "-pubout", "-outform", "DER", "-out", "grant-key.pub.der")

grant = {
    "grantId": "web-1001", "entitlement": "premium", "expiresDate": None, "revoked": False,
    "reason": "bought on the web", "bundleId": "app.stillwater", "signedDate": ms("2026-11-20T09:00:00Z"),
}
revocation = dict(grant, revoked=True, reason="refunded on the web", signedDate=ms("2026-11-21T09:00:00Z"))
files = {
    "grant.jws": sign(grant, "support-2026", "keys/grant-key.pem"),
    "grant-revoked.jws": sign(revocation, "support-2026", "keys/grant-key.pem"),
    "grant-wrong-key.jws": sign(grant, "support-2026", "keys/other-key.pem"),
    "grant-unknown-kid.jws": sign(grant, "retired-2019", "keys/grant-key.pem"),
}
# The good grant's header and signature around another payload (another grantId): the signature
# no longer covers it.
header, _, signature = files["grant.jws"].split(".")
forged = dict(grant, grantId="web-1002")
files["grant-tampered.jws"] = ".".join([header, b64url(json.dumps(forged, separators=(",", ":"), sort_keys=True).encode()), signature])
files["grant-unsigned.json"] = json.dumps(grant, sort_keys=True)
for name, text in files.items():
    with open(name, "w") as f:
        f.write(text + "\n")
print("wrote", ", ".join(sorted(files)), file=sys.stderr)
