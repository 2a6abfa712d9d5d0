"""Certificates: issue after a passed inspection, number them, sign them (COSE/ES256) with the office's key, draw their
QR, publish the key set and the status list, suspend, reinstate, revoke and verify; its faces are the police verdict
page behind the QR and the certificates API.
"""
from inspection.certificates.keys import key_set, signer
from inspection.certificates.operations import derive_status, issue_certificate, revoke_certificate, suspend_certificate

__all__ = ["issue_certificate", "revoke_certificate", "suspend_certificate", "derive_status", "signer", "key_set"]
