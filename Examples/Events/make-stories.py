#!/usr/bin/env python3
"""Writes the story files in this directory (one JSON Lines file per story).

The files are committed and are what the README's tour and the tests read; this script only
records how they were made, so a changed date stays consistent across the stories. Run it from
anywhere: `python3 Examples/Events/make-stories.py`. It needs the `cryptography` package (pip) for
notification.jsonl, whose JWS strings are signed, like Xcode's StoreKit testing data, with a
throwaway self-signed P-256 certificate made on each run (so that file changes on every run).

Every story is for the app in Shared/Catalog.json (bundle com.irenews.geko, environment Xcode)
and its products in Shared/Geko.storekit: com.irenews.geko.plus.monthly (one-week free trial),
com.irenews.geko.plus.annual and com.irenews.geko.plus.lifetime.
"""
import base64
import datetime
import json
import os
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
BUNDLE = "com.irenews.geko"
MONTHLY = "com.irenews.geko.plus.monthly"
ANNUAL = "com.irenews.geko.plus.annual"
LIFETIME = "com.irenews.geko.plus.lifetime"
GROUP = "21400001"


def ms(text):
    """Milliseconds since 1970 for an ISO 8601 UTC instant such as 2026-11-20T09:00:00Z."""
    when = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)
    return int(when.timestamp() * 1000)


def transaction(tid, product, purchased, expires=None, original=None, signed=None, **extra):
    """A StoreKit 2 transaction (Transaction.jsonRepresentation / JWSTransactionDecodedPayload)."""
    kind = "Non-Consumable" if product == LIFETIME else "Auto-Renewable Subscription"
    line = {
        "transactionId": tid,
        "originalTransactionId": original or tid,
        "bundleId": BUNDLE,
        "productId": product,
        "purchaseDate": ms(purchased),
        "originalPurchaseDate": ms(purchased),
        "type": kind,
        "inAppOwnershipType": "PURCHASED",
        "quantity": 1,
        "signedDate": ms(signed or purchased),
        "environment": "Xcode",
        "storefront": "USA",
        "transactionReason": "PURCHASE",
    }
    if expires:
        line["expiresDate"] = ms(expires)
        line["subscriptionGroupIdentifier"] = GROUP
    for key, value in extra.items():
        line[key] = ms(value) if key.endswith("Date") else value
    return line


def renewal(original, product, signed, auto_renew=True, next_product=None, **extra):
    """A StoreKit 2 renewal info (JWSRenewalInfoDecodedPayload)."""
    line = {
        "originalTransactionId": original,
        "productId": product,
        "autoRenewProductId": next_product or product,
        "autoRenewStatus": 1 if auto_renew else 0,
        "signedDate": ms(signed),
        "environment": "Xcode",
    }
    for key, value in extra.items():
        line[key] = ms(value) if key.endswith("Date") else value
    return line


TRIAL = dict(offerType=1, offerDiscountType="FREE_TRIAL", offerPeriod="P1W")

STORIES = {
    # Nothing bought: the free tier.
    "free": [],
    # A one-week free trial of the monthly plan started on 20 November; it renews on the 27th.
    "trial": [
        transaction("2000000001", MONTHLY, "2026-11-20T09:00:00Z", "2026-11-27T09:00:00Z", **TRIAL),
        renewal("2000000001", MONTHLY, "2026-11-20T09:00:00Z", renewalDate="2026-11-27T09:00:00Z"),
    ],
    # The same trial, but the user turned auto-renew off on the 24th: it ends on the 27th.
    "trial-ends": [
        transaction("2000000001", MONTHLY, "2026-11-20T09:00:00Z", "2026-11-27T09:00:00Z", **TRIAL),
        renewal("2000000001", MONTHLY, "2026-11-24T18:00:00Z", auto_renew=False),
    ],
    # Geko Plus for life, bought on 22 November.
    "lifetime": [
        transaction("2000000101", LIFETIME, "2026-11-22T09:30:00Z"),
    ],
    # The lifetime purchase refunded on 23 November: the same transaction, now revoked.
    "refund": [
        transaction("2000000101", LIFETIME, "2026-11-22T09:30:00Z", signed="2026-11-23T08:00:00Z",
                    revocationDate="2026-11-23T08:00:00Z", revocationReason=0),
    ],
    # A trial in September, then two monthly renewals; paid up to 1 December.
    "renewal": [
        transaction("2000000201", MONTHLY, "2026-09-24T09:00:00Z", "2026-10-01T09:00:00Z", **TRIAL),
        transaction("2000000202", MONTHLY, "2026-10-01T09:00:00Z", "2026-11-01T09:00:00Z", original="2000000201",
                    webOrderLineItemId="2000000202", transactionReason="RENEWAL"),
        transaction("2000000203", MONTHLY, "2026-11-01T09:00:00Z", "2026-12-01T09:00:00Z", original="2000000201",
                    webOrderLineItemId="2000000203", transactionReason="RENEWAL"),
        renewal("2000000201", MONTHLY, "2026-11-01T09:00:00Z", renewalDate="2026-12-01T09:00:00Z"),
    ],
    # Monthly from 5 November, upgraded to annual on the 15th: the monthly transaction is marked
    # upgraded (and revoked at that instant), the annual one runs to 15 November 2027.
    "upgrade": [
        transaction("2000000301", MONTHLY, "2026-11-05T09:00:00Z", "2026-12-05T09:00:00Z"),
        transaction("2000000301", MONTHLY, "2026-11-05T09:00:00Z", "2026-12-05T09:00:00Z", signed="2026-11-15T12:00:00Z",
                    isUpgraded=True, revocationDate="2026-11-15T12:00:00Z"),
        transaction("2000000302", ANNUAL, "2026-11-15T12:00:00Z", "2027-11-15T12:00:00Z", original="2000000301"),
        renewal("2000000301", ANNUAL, "2026-11-15T12:00:00Z"),
    ],
    # The monthly renewal on 20 November failed to bill; Apple retries and the 16-day billing
    # grace period keeps access until 6 December.
    "grace": [
        transaction("2000000401", MONTHLY, "2026-10-20T09:00:00Z", "2026-11-20T09:00:00Z"),
        renewal("2000000401", MONTHLY, "2026-11-20T09:00:00Z", isInBillingRetryPeriod=True,
                gracePeriodExpiresDate="2026-12-06T09:00:00Z", expirationIntent=2),
    ],
    # A family member's annual plan, shared through Family Sharing.
    "family-sharing": [
        transaction("2000000501", ANNUAL, "2026-11-10T09:00:00Z", "2027-11-10T09:00:00Z", inAppOwnershipType="FAMILY_SHARED"),
    ],
}


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def signer():
    """A JWS signer with a fresh self-signed P-256 certificate, as Xcode's StoreKit testing uses."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "StoreKit Testing in Xcode (example)")])
    now = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    certificate = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(now)
        .not_valid_after(now + datetime.timedelta(days=3650))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    chain = [base64.b64encode(certificate.public_bytes(serialization.Encoding.DER)).decode()]

    def sign(payload):
        header = {"alg": "ES256", "typ": "JWT", "kid": "Apple_Xcode_Key", "x5c": chain}
        signing_input = b64url(json.dumps(header, separators=(",", ":")).encode()) + "." + b64url(
            json.dumps(payload, separators=(",", ":")).encode())
        r, s = decode_dss_signature(key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
        return signing_input + "." + b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))

    return sign


def notification():
    """The body Apple POSTs for a first annual purchase on 21 November: {"signedPayload": JWS}."""
    sign = signer()
    purchased, expires = "2026-11-21T09:00:00Z", "2027-11-21T09:00:00Z"
    payload = {
        "notificationType": "SUBSCRIBED",
        "subtype": "INITIAL_BUY",
        "notificationUUID": str(uuid.UUID("6f1e1c1a-8b1d-4c55-9d0e-2b7a4f1d0001")),
        "version": "2.0",
        "signedDate": ms("2026-11-21T09:00:01Z"),
        "data": {
            "bundleId": BUNDLE,
            "environment": "Xcode",
            "status": 1,
            "signedTransactionInfo": sign(transaction("2000000601", ANNUAL, purchased, expires)),
            "signedRenewalInfo": sign(renewal("2000000601", ANNUAL, purchased, renewalDate=expires)),
        },
    }
    return [{"signedPayload": sign(payload)}]


def write(name, lines):
    with open(os.path.join(HERE, name + ".jsonl"), "w") as out:
        for line in lines:
            out.write(json.dumps(line, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    for story, lines in STORIES.items():
        write(story, lines)
    write("notification", notification())
