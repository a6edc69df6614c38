#!/usr/bin/env python3
"""Writes the story files in this directory (one JSON Lines file per story) for Stillwater, the
second example app (Examples/Stillwater/Catalog.json: bundle app.stillwater, app group
group.app.stillwater, environments Xcode and LocalTesting, a weekly plan with a one-week free
trial, quarterly and yearly plans, a lifetime purchase and a sleep-story pack no entitlement lists).

The files are committed and are what the tests read; this script records how they were made.
Run it from anywhere: `python3 Examples/Stillwater/Events/make-stories.py`.
"""
import base64
import datetime
import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
BUNDLE = "app.stillwater"
WEEKLY = "app.stillwater.premium.weekly"
QUARTERLY = "app.stillwater.premium.quarterly"
YEARLY = "app.stillwater.premium.yearly"
FOREVER = "app.stillwater.forever"
SLEEPPACK = "app.stillwater.sleeppack"
GROUP = "30500001"


def ms(text):
    when = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)
    return int(when.timestamp() * 1000)


def transaction(tid, product, purchased, expires=None, original=None, environment="Xcode", **extra):
    line = {
        "transactionId": tid,
        "originalTransactionId": original or tid,
        "bundleId": BUNDLE,
        "productId": product,
        "purchaseDate": ms(purchased),
        "originalPurchaseDate": ms(purchased),
        "type": "Auto-Renewable Subscription" if expires else "Non-Consumable",
        "inAppOwnershipType": "PURCHASED",
        "quantity": 1,
        "signedDate": ms(purchased),
        "environment": environment,
        "storefront": "DEU",
        "transactionReason": "PURCHASE",
    }
    if expires:
        line["expiresDate"] = ms(expires)
        line["subscriptionGroupIdentifier"] = GROUP
    for key, value in extra.items():
        line[key] = ms(value) if key.endswith("Date") else value
    return line


def renewal(original, product, signed, auto_renew=True, environment="Xcode"):
    return {
        "originalTransactionId": original,
        "productId": product,
        "autoRenewProductId": product,
        "autoRenewStatus": 1 if auto_renew else 0,
        "signedDate": ms(signed),
        "environment": environment,
    }


STORIES = {
    # A week's free trial of the weekly plan (premium until 2026-11-27T08:00:00Z).
    "weekly-trial": [
        transaction("5000000001", WEEKLY, "2026-11-20T08:00:00Z", "2026-11-27T08:00:00Z",
                    offerType=1, offerDiscountType="FREE_TRIAL", offerPeriod="P1W"),
        renewal("5000000001", WEEKLY, "2026-11-20T08:00:00Z"),
    ],
    # The weekly plan, then an upgrade to the yearly plan (premium until 2027-11-22T08:00:00Z).
    "upgrade-to-yearly": [
        transaction("5000000011", WEEKLY, "2026-11-13T08:00:00Z", "2026-11-20T08:00:00Z"),
        transaction("5000000012", WEEKLY, "2026-11-20T08:00:00Z", "2026-11-27T08:00:00Z", original="5000000011"),
        transaction("5000000012", WEEKLY, "2026-11-20T08:00:00Z", "2026-11-27T08:00:00Z", original="5000000011",
                    isUpgraded=True, signedDate="2026-11-22T08:00:00Z"),
        transaction("5000000013", YEARLY, "2026-11-22T08:00:00Z", "2027-11-22T08:00:00Z", original="5000000011"),
        renewal("5000000011", YEARLY, "2026-11-22T08:00:00Z"),
    ],
    # The lifetime purchase beside a quarterly plan (premium for good, from the lifetime purchase).
    "forever-and-quarterly": [
        transaction("5000000021", QUARTERLY, "2026-10-01T08:00:00Z", "2027-01-01T08:00:00Z"),
        renewal("5000000021", QUARTERLY, "2026-10-01T08:00:00Z"),
        transaction("5000000022", FOREVER, "2026-11-20T08:00:00Z"),
    ],
    # A sleep-story pack the catalog maps to no entitlement: kept, listed in unmappedProducts.
    "sleep-pack": [
        transaction("5000000031", SLEEPPACK, "2026-11-20T08:00:00Z"),
    ],
}



def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def signed_grant(payload, kid="support-2026"):
    """A grant as Stillwater's support tool signs one: ES256 with the example key
    Keys/support-2026.pem (`openssl dgst -sha256 -sign`, DER turned into raw r || s)."""
    header = b64url(json.dumps({"alg": "ES256", "kid": kid}, separators=(",", ":")).encode())
    body = b64url(json.dumps(payload, separators=(",", ":")).encode())
    key = os.path.join(HERE, "..", "Keys", kid + ".pem")
    der = subprocess.run(["openssl", "dgst", "-sha256", "-sign", key], input=f"{header}.{body}".encode(), capture_output=True, check=True).stdout
    index, raw = (2 if der[1] < 0x80 else 3), b""
    for _ in range(2):
        length = der[index + 1]
        raw += der[index + 2:index + 2 + length].lstrip(b"\0").rjust(32, b"\0")
        index += 2 + length
    return f"{header}.{body}.{b64url(raw)}"


# A month of Premium given by support after an outage: a grant signed with the key the catalog's
# grantKeys names (Keys/support-2026.pub.pem). Ownership `granted`, subscribed until 2026-12-20.
STORIES["support-grant"] = [
    signed_grant({
        "grantId": "support-1042", "entitlement": "premium", "expiresDate": ms("2026-12-20T08:00:00Z"), "revoked": False,
        "reason": "a month on us after the outage", "bundleId": BUNDLE, "signedDate": ms("2026-11-20T08:00:00Z"),
    }),
]

for name, lines in STORIES.items():
    with open(os.path.join(HERE, name + ".jsonl"), "w") as out:
        for line in lines:
            out.write((line if isinstance(line, str) else json.dumps(line, separators=(",", ":"))) + "\n")
