#!/usr/bin/env python3
"""Regenerates the hostile-input corpus (Tests/Corpus/{shared-files,events,catalogs}).

Deterministic: run it from anywhere, commit what it writes. Files too large to commit (over
the 1 MiB shared-file cap, the 16 MiB event line) and the special kinds (symlink, FIFO,
directory, foreign owner, world-writable) are made by HostileInputTests at run time.
"""
import base64, datetime, json, os, plistlib, random, struct, shutil, sys

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(20261122)
UTC = datetime.timezone.utc


def write(folder, name, data):
    path = os.path.join(HERE, folder, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


# ---------------------------------------------------------------- shared files
def snapshot(**changes):
    entry = {"active": True, "state": "subscribed", "periodType": "normal", "willRenew": True,
             "ownership": "purchased", "productId": "com.irenews.geko.plus.monthly",
             "expiresAt": datetime.datetime(2030, 1, 1)}
    snap = {"schemaVersion": 1, "generation": 7, "issuedAt": datetime.datetime(2026, 11, 22),
            "entitlements": {"plus": entry}}
    for key, value in changes.items():
        target, _, field = key.partition("__")
        if target == "entry":
            if value is DELETE: entry.pop(field)
            else: entry[field] = value
        elif value is DELETE: snap.pop(target)
        else: snap[target] = value
    return snap

DELETE = object()

def bplist(root):
    return plistlib.dumps(root, fmt=plistlib.FMT_BINARY, sort_keys=True)

def suite(**changes):
    return {"entitlementSnapshot": snapshot(**changes), "someAppKey": "foreign keys survive"}

def patched_date(name, seconds_since_2001, **changes):
    """A binary plist whose date `name` (a unique marker date) holds the raw double given."""
    marker = datetime.datetime(2011, 11, 11, 11, 11, 11)
    data = bplist(suite(**{name: marker}, **changes))
    raw = b"\x33" + struct.pack(">d", (marker - datetime.datetime(2001, 1, 1)).total_seconds())
    assert data.count(raw) == 1, name
    return data.replace(raw, b"\x33" + struct.pack(">d", seconds_since_2001))

good = bplist(suite())
S = "shared-files"
write(S, "empty.plist", b"")
write(S, "random-bytes-4k.plist", bytes(rng.getrandbits(8) for _ in range(4096)))
write(S, "random-bytes-after-bplist00-magic.plist", b"bplist00" + bytes(rng.getrandbits(8) for _ in range(600)))
write(S, "truncated-binary-half.plist", good[: len(good) // 2])
write(S, "truncated-binary-magic-only.plist", b"bplist00")
write(S, "truncated-binary-without-trailer.plist", good[:-32])
write(S, "truncated-binary-one-byte-short.plist", good[:-1])
xml = plistlib.dumps(suite(), fmt=plistlib.FMT_XML)
write(S, "truncated-xml-half.plist", xml[: len(xml) // 2])
write(S, "xml-unclosed-dict.plist", xml.replace(b"</dict>\n</plist>", b""))
write(S, "openstep-text.plist", b'{ entitlementSnapshot = { schemaVersion = 1; generation = 9; }; }')
write(S, "json-instead-of-plist.plist", json.dumps({"entitlementSnapshot": {"schemaVersion": 1, "generation": 9}}))
write(S, "root-is-array.plist", bplist([suite()]))
write(S, "root-is-string.plist", bplist("entitlementSnapshot"))
write(S, "snapshot-is-string.plist", bplist({"entitlementSnapshot": "unlocked"}))
write(S, "snapshot-is-array.plist", bplist({"entitlementSnapshot": [snapshot()]}))
write(S, "snapshot-is-data.plist", bplist({"entitlementSnapshot": good}))
write(S, "generation-as-string.plist", bplist(suite(generation="8")))
write(S, "generation-negative.plist", bplist(suite(generation=-1)))
write(S, "generation-as-real.plist", bplist(suite(generation=8.0)))
write(S, "generation-missing.plist", bplist(suite(generation=DELETE)))
write(S, "schema-version-2.plist", bplist(suite(schemaVersion=2)))
write(S, "schema-version-0.plist", bplist(suite(schemaVersion=0)))
write(S, "schema-version-missing.plist", bplist(suite(schemaVersion=DELETE)))
write(S, "schema-version-as-string.plist", bplist(suite(schemaVersion="1")))
write(S, "issued-at-missing.plist", bplist(suite(issuedAt=DELETE)))
write(S, "issued-at-as-string.plist", bplist(suite(issuedAt="2026-11-22T00:00:00Z")))
write(S, "issued-at-nan.plist", patched_date("issuedAt", float("nan")))
write(S, "issued-at-infinity.plist", patched_date("issuedAt", float("inf")))
write(S, "issued-at-negative-1969.plist", patched_date("issuedAt", -1.0e9))
write(S, "issued-at-absurd-year-1e300.plist", patched_date("issuedAt", 1.0e300))
write(S, "expires-at-nan.plist", patched_date("entry__expiresAt", float("nan")))
write(S, "expires-at-minus-infinity.plist", patched_date("entry__expiresAt", float("-inf")))
write(S, "expires-at-absurd-year-100000.plist", patched_date("entry__expiresAt", 3.1e12))
write(S, "expires-at-as-integer.plist", bplist(suite(entry__expiresAt=1900000000)))
write(S, "next-transition-nan.plist", patched_date("nextTransition", float("nan")))
write(S, "next-transition-absurd-negative.plist", patched_date("nextTransition", -1.0e300))
write(S, "state-unknown.plist", bplist(suite(entry__state="superSubscribed")))
write(S, "active-as-string.plist", bplist(suite(entry__active="true")))
write(S, "active-as-integer.plist", bplist(suite(entry__active=1)))
write(S, "entitlements-missing.plist", bplist(suite(entitlements=DELETE)))
write(S, "entitlements-as-array.plist", bplist(suite(entitlements=[{"active": True}])))
write(S, "entitlement-entry-as-boolean.plist", bplist(suite(entitlements={"plus": True})))
write(S, "ownership-unknown.plist", bplist(suite(entry__ownership="borrowed")))
write(S, "period-type-missing.plist", bplist(suite(entry__periodType=DELETE)))
write(S, "will-renew-missing.plist", bplist(suite(entry__willRenew=DELETE)))
write(S, "product-id-as-integer.plist", bplist(suite(entry__productId=42)))
write(S, "deep-nesting-xml-40000.plist",
      b'<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0">' + b"<array>" * 40000 + b"</array>" * 40000 + b"</plist>\n")
write(S, "deep-nesting-xml-unclosed.plist",
      b'<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0">' + b"<dict><key>a</key>" * 50000)

def nested_bplist(depth):
    """bplist00 whose object i is a one-element array holding object i+1 (refs are 4 bytes)."""
    objects = []
    for i in range(depth):
        objects.append(b"\xa1" + struct.pack(">I", i + 1))
    objects.append(b"\x09")  # true
    body, offsets = b"bplist00", []
    for obj in objects:
        offsets.append(len(body)); body += obj
    table_offset = len(body)
    for off in offsets: body += struct.pack(">I", off)
    body += b"\x00" * 6 + bytes([4, 4]) + struct.pack(">QQQ", len(objects), 0, table_offset)
    return body

write(S, "deep-nesting-binary-20000.plist", nested_bplist(20000))
cyclic = bytearray(nested_bplist(3))
# Point the innermost array back at the root: a reference cycle.
cyclic[8 + 5 * 2 + 1: 8 + 5 * 2 + 5] = struct.pack(">I", 0)
write(S, "binary-reference-cycle.plist", bytes(cyclic))
bad_offsets = bytearray(good)
table = struct.unpack(">Q", good[-8:])[0]
bad_offsets[table:table + 1] = b"\xff"
write(S, "binary-offset-table-out-of-range.plist", bytes(bad_offsets))
huge_count = bytearray(good)
huge_count[-24:-16] = struct.pack(">Q", 1 << 60)
write(S, "binary-object-count-2-pow-60.plist", bytes(huge_count))
zero_ref = bytearray(good)
zero_ref[-26] = 0
zero_ref[-25] = 0
write(S, "binary-trailer-zero-sizes.plist", bytes(zero_ref))
write(S, "binary-array-claims-2-pow-40-items.plist",
      b"bplist00" + b"\xaf\x14" + struct.pack(">Q", 1 << 40) + b"\x00" * 6 + bytes([1, 1]) + struct.pack(">QQQ", 1, 0, 8 + 1 + 9))
write(S, "xml-invalid-utf8-in-state.plist", plistlib.dumps(suite(entry__state="SUBSCRIBEDX"), fmt=plistlib.FMT_XML).replace(b"SUBSCRIBEDX", b"subscribed\xff\xfe"))
write(S, "xml-invalid-utf8-in-key.plist", xml.replace(b"<key>plus</key>", b"<key>pl\xc3\x28us</key>", 1))
lone = bytearray(bplist(suite(entry__state="\u00e9tat-X")))
# the UTF-16 string "étatX…": replace the first code unit with a lone high surrogate.
idx = lone.find("\u00e9".encode("utf-16-be"))
lone[idx:idx + 2] = b"\xd8\x00"
write(S, "binary-utf16-lone-surrogate.plist", bytes(lone))
write(S, "xml-entity-expansion.plist", b'<?xml version="1.0"?>\n<!DOCTYPE plist [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>\n<plist version="1.0"><dict><key>entitlementSnapshot</key><string>&c;</string></dict></plist>\n')

# ---------------------------------------------------------------- events
E = "events"
def tx(**changes):
    t = {"transactionId": "2000000001", "originalTransactionId": "2000000001",
         "productId": "com.irenews.geko.plus.monthly", "purchaseDate": 1763769600000,
         "expiresDate": 1766361600000, "signedDate": 1763769600000, "type": "Auto-Renewable Subscription",
         "inAppOwnershipType": "PURCHASED", "environment": "Xcode", "bundleId": "com.irenews.geko"}
    for k, v in changes.items():
        if v is DELETE: t.pop(k)
        else: t[k] = v
    return t

def line(obj): return json.dumps(obj, separators=(",", ":"))
def b64(obj): return base64.urlsafe_b64encode(obj if isinstance(obj, bytes) else line(obj).encode()).rstrip(b"=").decode()
def jws(payload, header=None):
    return b64(header or {"alg": "ES256", "x5c": []}) + "." + (payload if isinstance(payload, str) else b64(payload)) + "." + b64(b"not-a-signature")
def notification(**data):
    base = {"bundleId": "com.irenews.geko", "environment": "Xcode"}
    base.update(data)
    return {"notificationType": "DID_RENEW", "subtype": "", "notificationUUID": "0f0f", "data": base, "version": "2.0", "signedDate": 1763769600000}
good_line = line(tx())

def events(name, *lines):
    write(E, name, "\n".join(lines) + "\n")

events("truncated-json.jsonl", good_line, good_line[: len(good_line) // 2])
events("random-bytes-ascii.jsonl", "".join(chr(rng.randrange(32, 127)) for _ in range(300)))
write(E, "random-bytes-binary.jsonl", bytes(rng.getrandbits(8) for _ in range(2048)))
write(E, "invalid-utf8-in-product-id.jsonl", (good_line + "\n" + line(tx(productId="PRODUCT"))).encode().replace(b"PRODUCT", b"com.irenews.\xff\xfe"))
write(E, "invalid-utf8-overlong-slash.jsonl", (good_line + "\n").encode() + b'{"transactionId":"\xc0\xaf"}\n')
events("top-level-array.jsonl", "[" + good_line + "]")
events("top-level-string.jsonl", json.dumps(good_line))
events("top-level-number.jsonl", "1763769600000")
events("top-level-null.jsonl", "null")
events("unknown-shape.jsonl", line({"hello": "world", "amount": 3}))
events("unknown-shape-only-original-transaction-id.jsonl", line({"originalTransactionId": "2000000001"}))
events("transaction-id-as-object.jsonl", line(tx(transactionId={"id": 1})))
events("transaction-id-as-boolean.jsonl", line(tx(transactionId=True)))
events("transaction-id-empty.jsonl", line(tx(transactionId="")))
events("product-id-missing.jsonl", line(tx(productId=DELETE)))
events("product-id-empty.jsonl", line(tx(productId="")))
events("product-id-as-array.jsonl", line(tx(productId=["com.irenews.geko.plus.lifetime"])))
events("purchase-date-as-string.jsonl", line(tx(purchaseDate="2026-11-22T00:00:00Z")))
events("purchase-date-missing.jsonl", line(tx(purchaseDate=DELETE)))
events("purchase-date-negative.jsonl", line(tx(purchaseDate=-1763769600000)))
events("purchase-date-nan-literal.jsonl", good_line.replace("1763769600000,\"expiresDate\"", "NaN,\"expiresDate\""))
events("purchase-date-1e308.jsonl", good_line.replace("\"purchaseDate\":1763769600000", "\"purchaseDate\":1e308"))
events("purchase-date-1e999-overflow.jsonl", good_line.replace("\"purchaseDate\":1763769600000", "\"purchaseDate\":1e999"))
events("expires-date-year-9999.jsonl", line(tx(expiresDate=253402300799000)))
events("expires-date-infinity-literal.jsonl", good_line.replace("\"expiresDate\":1766361600000", "\"expiresDate\":Infinity"))
events("expires-date-before-2008.jsonl", line(tx(expiresDate=1000)))
events("signed-date-absurd-future.jsonl", line(tx(signedDate=9.9e15)))
events("revocation-date-negative-zero-epoch.jsonl", line(tx(revocationDate=-0.0)))
events("bundle-id-foreign.jsonl", line(tx(bundleId="com.evil.app")))
events("environment-production.jsonl", line(tx(environment="Production")))
events("duplicate-key-transaction-id.jsonl", good_line[:-1] + ',"transactionId":"2000000099"}')
events("duplicate-key-product-id.jsonl", good_line[:-1] + ',"productId":"com.irenews.geko.plus.lifetime"}')
events("conflicting-transaction-id-other-product.jsonl", good_line, line(tx(productId="com.irenews.geko.plus.lifetime", type="Non-Consumable", expiresDate=DELETE, signedDate=1763769700000)))
events("conflicting-transaction-id-other-purchase-date.jsonl", good_line, line(tx(purchaseDate=1763000000000, signedDate=1763769700000)))
events("conflicting-transaction-id-other-original.jsonl", good_line, line(tx(originalTransactionId="2000000777", signedDate=1763769700000)))
events("jws-bad-base64.jsonl", line(notification(signedTransactionInfo="eyJhbGciOiJFUzI1NiJ9.@@@not*base64@@@.c2ln")))
events("jws-two-parts.jsonl", line(notification(signedTransactionInfo=b64({"alg": "ES256"}) + "." + b64(tx()))))
events("jws-one-part.jsonl", line(notification(signedTransactionInfo=b64(tx()))))
events("jws-four-parts.jsonl", line(notification(signedTransactionInfo=jws(tx()) + ".extra")))
events("jws-empty-string.jsonl", line(notification(signedTransactionInfo="")))
events("jws-payload-not-json.jsonl", line(notification(signedTransactionInfo=jws(b64(b"this is not json")))))
events("jws-payload-array.jsonl", line(notification(signedTransactionInfo=jws(b64(b"[1,2,3]")))))
events("jws-payload-wrong-types.jsonl", line(notification(signedTransactionInfo=jws(tx(purchaseDate="yesterday")))))
events("jws-as-number.jsonl", line(notification(signedTransactionInfo=12345)))
events("jws-renewal-info-bad-base64.jsonl", line(notification(signedRenewalInfo="a.%%%%.b")))
events("signed-payload-not-a-notification.jsonl", line({"signedPayload": jws(tx())}))
events("signed-payload-bad-base64.jsonl", line({"signedPayload": "x.y!z.w"}))
events("notification-data-is-string.jsonl", line({"notificationType": "DID_RENEW", "data": "signedTransactionInfo"}))
events("notification-type-as-number.jsonl", line({"notificationType": 7, "data": {}}))
events("renewal-info-auto-renew-status-as-string.jsonl", line({"originalTransactionId": "2000000001", "autoRenewStatus": "yes"}))
events("renewal-info-grace-period-nan-string.jsonl", line({"originalTransactionId": "2000000001", "gracePeriodExpiresDate": "NaN"}))
events("deep-nesting-200.jsonl", '{"transactionId":' + "[" * 200 + "]" * 200 + "}")
events("deep-nesting-100000-unclosed.jsonl", "[" * 100000)
events("number-with-10000-digits.jsonl", good_line.replace("\"purchaseDate\":1763769600000", "\"purchaseDate\":1" + "0" * 10000))
events("unescaped-control-character.jsonl", good_line.replace("2000000001", "2000\u00010001", 1))
events("lone-surrogate-escape.jsonl", good_line.replace("com.irenews.geko.plus.monthly", "com.irenews.geko.plus.monthly\\ud800", 1))
events("trailing-garbage.jsonl", good_line + " trailing")
events("two-objects-on-one-line.jsonl", good_line + good_line)
events("quantity-as-float.jsonl", line(tx(quantity=1.5)))
events("subscription-statuses-without-last-transactions.jsonl", line({"data": [{"subscriptionGroupIdentifier": "21400001"}]}))

# ---------------------------------------------------------------- catalogs
C = "catalogs"
storekit_rel = "../../../Shared/Geko.storekit"
with open(os.path.join(HERE, "..", "..", "Shared", "Catalog.json")) as f:
    base_catalog = json.load(f)
def catalog(name, **changes):
    c = json.loads(json.dumps(base_catalog))
    c["storekit"] = storekit_rel
    for k, v in changes.items():
        if v is DELETE: c.pop(k)
        else: c[k] = v
    write(C, name, json.dumps(c, indent=2) + "\n")

catalog("missing-storekit-key.json", storekit=DELETE)
catalog("missing-bundle-id.json", bundleId=DELETE)
catalog("missing-environment.json", environment=DELETE)
catalog("missing-entitlements.json", entitlements=DELETE)
catalog("missing-entitlement-products.json", entitlements={"plus": {}})
catalog("missing-paywall-title.json", features={"widgets": {"entitlement": "plus", "paywall": {"message": "m"}}})
catalog("storekit-path-does-not-exist.json", storekit="no-such-file.storekit")
catalog("storekit-path-is-a-directory.json", storekit="storekit")
catalog("storekit-path-empty.json", storekit="")
catalog("storekit-path-as-number.json", storekit=42)
catalog("unknown-product-in-entitlement.json", entitlements={"plus": {"products": ["com.irenews.geko.plus.weekly"]}})
catalog("unknown-entitlement-in-feature.json", features={"widgets": {"entitlement": "gold"}})
catalog("environment-unknown.json", environment="Staging")
catalog("environment-as-boolean.json", environment=True)
catalog("bundle-id-empty.json", bundleId="")
catalog("entitlements-as-array.json", entitlements=["plus"])
catalog("products-as-string.json", entitlements={"plus": {"products": "com.irenews.geko.plus.monthly"}})
catalog("free-limit-negative.json", features={"habits": {"entitlement": "plus", "freeLimit": {"count": -3}}})
catalog("free-limit-count-as-string.json", features={"habits": {"entitlement": "plus", "freeLimit": {"count": "3"}}})
catalog("durations-not-iso8601.json", durations={"com.irenews.geko.plus.monthly": "a month"})
catalog("introductory-offer-unknown.json", introductoryOffer="always")
catalog("signatures-unknown.json", signatures="sometimes")
catalog("signatures-as-boolean.json", signatures=True)
catalog("trusted-roots-as-string.json", trustedRoots="root.pem")
catalog("trusted-roots-missing-file.json", trustedRoots=["no-such-root.pem"])
catalog("trusted-roots-not-a-certificate.json", trustedRoots=["storekit/random-bytes.storekit"])
catalog("trusted-roots-empty-path.json", trustedRoots=[""])
write(C, "duplicate-key-environment.json", json.dumps(dict(base_catalog, storekit=storekit_rel), indent=2).replace('"environment": "Xcode"', '"environment": "Xcode", "environment": "Production"'))
write(C, "not-json.json", "storekit = Geko.storekit\n")
write(C, "empty.json", "")
write(C, "top-level-array.json", "[" + json.dumps(base_catalog) + "]\n")
write(C, "invalid-utf8.json", json.dumps(dict(base_catalog, storekit=storekit_rel, bundleId="BUNDLE")).encode().replace(b"BUNDLE", b"com.\xff.geko"))
write(C, "truncated.json", json.dumps(dict(base_catalog, storekit=storekit_rel))[:200])
with open(os.path.join(HERE, "..", "..", "Shared", "Geko.storekit"), "rb") as f:
    storekit = f.read()
sk = json.loads(storekit)
def storekit_case(name, data):
    write(C, "storekit/" + name + ".storekit", data)
    catalog("storekit-" + name + ".json", storekit="storekit/" + name + ".storekit")
storekit_case("truncated", storekit[: len(storekit) // 2])
storekit_case("random-bytes", bytes(rng.getrandbits(8) for _ in range(1024)))
bad = json.loads(storekit); bad["products"][0].pop("productID"); storekit_case("product-missing-id", json.dumps(bad))
bad = json.loads(storekit); bad["products"].append(dict(bad["products"][0])); storekit_case("duplicate-product", json.dumps(bad))
bad = json.loads(storekit); bad["subscriptionGroups"][0]["subscriptions"][0]["groupNumber"] = "1"; storekit_case("group-number-as-string", json.dumps(bad))
bad = json.loads(storekit); bad["subscriptionGroups"][0]["subscriptions"][0]["groupNumber"] = 0; storekit_case("group-number-zero", json.dumps(bad))
bad = json.loads(storekit); bad["products"][0]["type"] = "Magic"; storekit_case("product-type-unknown", json.dumps(bad))
bad = json.loads(storekit); bad["subscriptionGroups"][0]["subscriptions"][0]["recurringSubscriptionPeriod"] = "P-1M"; storekit_case("period-negative", json.dumps(bad))
bad = json.loads(storekit); bad["subscriptionGroups"] = {"id": "x"}; storekit_case("groups-as-object", json.dumps(bad))
os.makedirs(os.path.join(HERE, C, "storekit", "directory.storekit"), exist_ok=True)
open(os.path.join(HERE, C, "storekit", "directory.storekit", ".keep"), "w").close()
catalog("storekit-path-is-a-directory.json", storekit="storekit/directory.storekit")

# ---------------------------------------------------------------- found by fuzzing (kept verbatim)
# A bplist holding a set object (marker 0xC4): Foundation on Linux segfaulted bridging it.
write(S, "fuzz-binary-set-object-crashed-foundation.plist", base64.b64decode("YnBsaXN0MDDSAQIDG18QE2VudGl0bGVtZW50U25hcHNob3Rac29tZUFwcEtlecQEBQYHCBgZGlxlbnRpdGxlbWVudHNaZ2VuZXJhdGlvblhpc3N1ZWRBdF1zY2hlbWFWZXJzaW9u0P8KVHBsdXPXCwwNDg8QERITFBUWFxJWYWN0aXZlWWV4cGlyZXNBdFlvd25lcnNoaXBacGVyaW9kVHlwbWFjaW50b3NoSWRVc3RhdGVZd2lsbFJlbmV3CRJxP7MAWXB1cmNoYXNlZFZub3JtYWxfEB1jb3cuaXJlbmV3cy5nZWtvLnBsdXMubW9udGhseVpzdWJzY3JpYmVkEAczQchZNAAAAAAQAV8QFGZvcmVpZ24ga2V5cyBzdXJ2aXZlAAgADQAjAC4ANwBEAE8AWABmAGkAbgB9AIQAjgCYAKMArQCzAL0AvgDDAM0A1AD0AP8BAQEKAQwAAAAAAAACAQAAAAAAAAAcAAAAAAAAAAAAAAAAAAABIw=="))
# The same set object behind a "bplist0z" header: CoreFoundation accepts any version bytes.
write(S, "fuzz-bplist0z-version-set-object-crashed-foundation.plist", base64.b64decode("YnBsaXN0MHrSAQIDG18QE2VudGl0bGVtZW50U25hcHNob3Rac29tZUFwcEtlecQEBQYHCBgZGlxlbnRpdGxlbWVudHNaZ2VuZXJhdGlvblhpc3N1ZWRBdF1zY2hlbWFWZXJzaW9u0P8KVHBsdXPXCwwNDg8QERITFBUWFxJWYWN0aXZlWWV4cGlyZXNBdFlvd25lcnNoaXBacGVyaW9kVHlwbWFjaW50b3NoSWRVc3RhdGVZd2lsbFJlbmV3CRJxP7MAWXB1cmNoYXNlZFZub3JtYWxfEB1jb3cuaXJlbmV3cy5nZWtvLnBsdXMubW9udGhseVpzdWJzY3JpYmVkEAczQchZNAAAAAAQAV8QFGZvcmVpZ24ga2V5cyBzdXJ2aXZlAAgADQAjAC4ANwBEAE8AWABmAGkAbgB9AIQAjgCYAKMArQCzAL0AvgDDAM0A1AD0AP8BAQEKAQwAAAAAAAACAQAAAAAAAAAcAAAAAAAAAAAAAAAAAAABIw=="))
