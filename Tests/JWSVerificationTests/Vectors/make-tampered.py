#!/usr/bin/env python3
"""Makes the tampered JWS fixtures in tampered/ from the real Sandbox notification in apple/.

Run from this directory: python3 make-tampered.py (needs python3 and the openssl command).
Certificates are DER built here field by field and signed with `openssl dgst -sign`, so every
field (validity, extensions, keys) is exactly as written below. ECDSA signatures are random, so
each run gives different bytes with the same meaning; the committed files are one run.

Every fixture is one line: the first real notification with `data.signedTransactionInfo`
replaced by a tampered JWS over (unless noted) the same transaction payload, and
`signedRenewalInfo` removed. Expected reasons (under the Sandbox catalog that trusts the test
root, catalogs/Sandbox-test-root.json):

  payload-byte-changed       real chain and signature, one payload byte changed -> bad signature
  other-key-signature        real header and payload, signed by another P-256 key -> bad signature
  self-made-ca-chain         leaf, intermediate and root made here (Apple OIDs present), the root
                             not trusted -> untrusted root
  leaf-without-apple-oid     test-root chain, leaf lacks 1.2.840.113635.100.6.11.1 -> missing Apple OID
  intermediate-swapped-for-leaf  test-root chain whose middle certificate is a leaf (its OID
                             1.2.840.113635.100.6.11.1, not a CA) -> missing Apple OID (x5c[1])
  chain-of-two               test-root chain without its root -> untrusted chain (2 certificates)
  root-one-byte-different    test-root chain whose root differs by its last byte -> untrusted root
  alg-changed                real JWS with alg ES384 in the header -> algorithm
  alg-none                   real payload, header {"alg":"none"}, empty signature -> algorithm
  leaf-expired-at-signed-date  test-root chain, leaf valid 2020-01-01..2022-12-31 (signedDate
                             2023-03-27) -> certificate expired at signedDate
  good-test-root             test-root chain, all rules met -> accepted (the control)

Also test-self-signed.cer (with keys/test-self-signed.pem), which tests use to sign payloads of
their own with a one-certificate chain, as Xcode does.
"""
import base64, json, os, subprocess, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "tampered")
KEYS = os.path.join(OUT, "keys")
os.makedirs(KEYS, exist_ok=True)

def b64u(data): return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
def unb64u(text): return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))

# --- DER ---------------------------------------------------------------------------------
def tlv(tag, content):
    n = len(content)
    if n < 0x80: length = bytes([n])
    else:
        body = n.to_bytes((n.bit_length() + 7) // 8, "big")
        length = bytes([0x80 | len(body)]) + body
    return bytes([tag]) + length + content
def seq(*items): return tlv(0x30, b"".join(items))
def set_(*items): return tlv(0x31, b"".join(items))
def integer(n):
    body = n.to_bytes((n.bit_length() + 8) // 8 or 1, "big")
    return tlv(0x02, body)
def oid(dotted):
    parts = [int(p) for p in dotted.split(".")]
    values = [parts[0] * 40 + parts[1]] + parts[2:]
    out = b""
    for v in values:
        chunk = [v & 0x7F]; v >>= 7
        while v: chunk.insert(0, 0x80 | (v & 0x7F)); v >>= 7
        out += bytes(chunk)
    return tlv(0x06, out)
def utf8(text): return tlv(0x0C, text.encode())
def utctime(text): return tlv(0x17, text.encode())
def boolean(value): return tlv(0x01, b"\xff" if value else b"\x00")
def octets(data): return tlv(0x04, data)
def explicit(number, content): return tlv(0xA0 | number, content)
def name(cn): return seq(set_(seq(oid("2.5.4.3"), utf8(cn))), set_(seq(oid("2.5.4.10"), utf8("Entitlement Broker Test"))))

ECDSA_SHA256, ECDSA_SHA384 = "1.2.840.10045.4.3.2", "1.2.840.10045.4.3.3"
LEAF_OID, INTERMEDIATE_OID = "1.2.840.113635.100.6.11.1", "1.2.840.113635.100.6.2.1"

def run(*args, input=None):
    return subprocess.run(args, input=input, capture_output=True, check=True).stdout

def key(label, curve):
    path = os.path.join(KEYS, label + ".pem")
    if not os.path.exists(path):
        run("openssl", "ecparam", "-name", curve, "-genkey", "-noout", "-out", path)
    return path

def spki(key_path): return run("openssl", "ec", "-in", key_path, "-pubout", "-outform", "DER")

def sign_der(key_path, digest, data):
    return run("openssl", "dgst", "-" + digest, "-sign", key_path, input=data)

def certificate(serial, subject, issuer, subject_key, issuer_key, *, ca, marker=None, valid=("200101000000Z", "391231235959Z"), algorithm=ECDSA_SHA384):
    extensions = [seq(oid("2.5.29.19"), boolean(True), octets(seq(boolean(True)) if ca else seq()))]
    if marker: extensions.append(seq(oid(marker), octets(tlv(0x05, b""))))
    tbs = seq(
        explicit(0, integer(2)), integer(serial), seq(oid(algorithm)), name(issuer),
        seq(utctime(valid[0]), utctime(valid[1])), name(subject), spki(subject_key),
        explicit(3, seq(*extensions)))
    digest = "sha384" if algorithm == ECDSA_SHA384 else "sha256"
    signature = sign_der(issuer_key, digest, tbs)
    return seq(tbs, seq(oid(algorithm)), tlv(0x03, b"\x00" + signature))

def raw_signature(der):
    # ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER } -> r || s, 32 bytes each.
    assert der[0] == 0x30
    body = der[2:] if der[1] < 0x80 else der[3:]
    values = []
    for _ in range(2):
        assert body[0] == 0x02
        length = body[1]
        values.append(int.from_bytes(body[2:2 + length], "big"))
        body = body[2 + length:]
    return b"".join(v.to_bytes(32, "big") for v in values)

def jws(header, payload_bytes, signing_key):
    signing_input = (b64u(json.dumps(header, separators=(",", ":")).encode()) + "." + b64u(payload_bytes)).encode()
    signature = raw_signature(sign_der(signing_key, "sha256", signing_input)) if signing_key else b""
    return signing_input.decode() + "." + b64u(signature)

def x5c(*certs): return [base64.b64encode(c).decode() for c in certs]

# --- the real data -----------------------------------------------------------------------
notification = json.loads(open(os.path.join(HERE, "apple", "qysmat-notifications.jsonl")).readline())
real = notification["data"]["signedTransactionInfo"]
real_header_b64, real_payload_b64, real_signature_b64 = real.split(".")
real_header = json.loads(unb64u(real_header_b64))
payload = unb64u(real_payload_b64)

def write(label, signed):
    line = json.loads(json.dumps(notification))
    line["data"]["signedTransactionInfo"] = signed
    del line["data"]["signedRenewalInfo"]
    with open(os.path.join(OUT, label + ".jsonl"), "w") as out:
        out.write(json.dumps(line, separators=(",", ":")) + "\n")

# --- the test root (trusted by catalogs/Sandbox-test-root.json) and its chain ----------------
root_key, inter_key, leaf_key = key("test-root", "secp384r1"), key("test-intermediate", "secp384r1"), key("test-leaf", "prime256v1")
root = certificate(1, "Test Root", "Test Root", root_key, root_key, ca=True)
inter = certificate(2, "Test Intermediate", "Test Root", inter_key, root_key, ca=True, marker=INTERMEDIATE_OID)
leaf = certificate(3, "Test Leaf", "Test Intermediate", leaf_key, inter_key, ca=False, marker=LEAF_OID)
with open(os.path.join(OUT, "test-root.pem"), "w") as out:
    out.write("-----BEGIN CERTIFICATE-----\n")
    text = base64.b64encode(root).decode()
    out.write("\n".join(text[i:i + 64] for i in range(0, len(text), 64)) + "\n-----END CERTIFICATE-----\n")

def es256(chain, key_path, body=payload): return jws({"alg": "ES256", "x5c": x5c(*chain)}, body, key_path)

write("good-test-root", es256([leaf, inter, root], leaf_key))

# One payload byte changed: the transactionId's last digit.
changed = bytearray(payload)
position = payload.index(b'"transactionId":"') + len(b'"transactionId":"') + 15
changed[position] = ord("7") if changed[position] != ord("7") else ord("8")
write("payload-byte-changed", real_header_b64 + "." + b64u(bytes(changed)) + "." + real_signature_b64)

other_key = key("other", "prime256v1")
signing_input = (real_header_b64 + "." + real_payload_b64).encode()
write("other-key-signature", real_header_b64 + "." + real_payload_b64 + "." + b64u(raw_signature(sign_der(other_key, "sha256", signing_input))))

rogue_root_key, rogue_inter_key, rogue_leaf_key = key("rogue-root", "secp384r1"), key("rogue-intermediate", "secp384r1"), key("rogue-leaf", "prime256v1")
rogue_root = certificate(11, "Apple Root CA - G3", "Apple Root CA - G3", rogue_root_key, rogue_root_key, ca=True)
rogue_inter = certificate(12, "Apple Worldwide Developer Relations Certification Authority", "Apple Root CA - G3", rogue_inter_key, rogue_root_key, ca=True, marker=INTERMEDIATE_OID)
rogue_leaf = certificate(13, "Prod ECC Mac App Store and iTunes Store Receipt Signing", "Apple Worldwide Developer Relations Certification Authority", rogue_leaf_key, rogue_inter_key, ca=False, marker=LEAF_OID)
write("self-made-ca-chain", es256([rogue_leaf, rogue_inter, rogue_root], rogue_leaf_key))

plain_leaf_key = key("test-leaf-without-oid", "prime256v1")
plain_leaf = certificate(4, "Test Leaf Without OID", "Test Intermediate", plain_leaf_key, inter_key, ca=False)
write("leaf-without-apple-oid", es256([plain_leaf, inter, root], plain_leaf_key))

# The middle certificate is a leaf (signed by the root, Apple's leaf OID, not a CA) and signs the first.
middle_key = key("test-middle-leaf", "secp384r1")
middle = certificate(5, "Test Leaf In The Middle", "Test Root", middle_key, root_key, ca=False, marker=LEAF_OID)
swapped_leaf = certificate(6, "Test Leaf", "Test Leaf In The Middle", leaf_key, middle_key, ca=False, marker=LEAF_OID)
write("intermediate-swapped-for-leaf", es256([swapped_leaf, middle, root], leaf_key))

write("chain-of-two", es256([leaf, inter], leaf_key))

altered_root = bytearray(root)
altered_root[-1] ^= 0x01
write("root-one-byte-different", es256([leaf, inter, bytes(altered_root)], leaf_key))

write("alg-changed", jws(dict(real_header, alg="ES384"), payload, leaf_key))
write("alg-none", jws({"alg": "none"}, payload, None))

expired_leaf = certificate(7, "Test Expired Leaf", "Test Intermediate", leaf_key, inter_key, ca=False, marker=LEAF_OID, valid=("200101000000Z", "221231235959Z"))
write("leaf-expired-at-signed-date", es256([expired_leaf, inter, root], leaf_key))
# A self-signed P-256 certificate like Xcode's StoreKit testing one, for tests that sign their own
# payloads (keys/test-self-signed.pem signs; test-self-signed.cer is the one-certificate x5c).
self_key = key("test-self-signed", "prime256v1")
with open(os.path.join(OUT, "test-self-signed.cer"), "wb") as out:
    out.write(certificate(8, "Test StoreKit Signing", "Test StoreKit Signing", self_key, self_key, ca=True, algorithm=ECDSA_SHA256))

print("wrote", sorted(os.listdir(OUT)))
