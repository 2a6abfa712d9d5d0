"""MediaStorage in an S3-compatible bucket (AWS S3, SeaweedFS, MinIO), with the guarantees of storage.py.

Selected by ``BALIZA_MEDIA_URL=s3://bucket/prefix``; ``BALIZA_S3_ENDPOINT_URL`` names a server other than
AWS; boto3 reads AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY itself. How the contract holds here:

* A PUT is atomic in S3: an object is visible whole or not at all, so no temp objects exist.
* Write-once: the first put carries ``If-None-Match: *`` (the server refuses to overwrite) and the
  bytes' SHA-256 in the object's metadata. A put that finds the key compares that hash, never the
  bytes (a retry does not download the object): the same bytes are a no-op that copies the object
  onto itself with fresh metadata, which restarts its LastModified (the server's clock) and so the sweep's grace; other
  bytes are KeyConflict. Unlike the local store, two racing first puts cannot both win.
* Unreachable, timed out or a 5xx answer: StorageUnavailable (a 503 with Retry-After upstream).
"""
from __future__ import annotations

import hashlib
import uuid
from datetime import datetime, timezone
from typing import Iterator
from urllib.parse import urlsplit

from inspection.media.storage import (
    InvalidKey,
    KeyConflict,
    MissingKey,
    StorageError,
    StorageUnavailable,
    StoredFile,
    _is_key,
    sha256_of_stream,
    validate_key,
)

SHA_META = "sha256"  # x-amz-meta-sha256: the hex SHA-256 of the object's bytes
CONTENT_TYPES = {"jpg": "image/jpeg", "png": "image/png", "webp": "image/webp"}
_PREFIX_PART = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


class BadMediaUrl(ValueError):
    """BALIZA_MEDIA_URL is not s3://bucket[/prefix] with a valid bucket name."""


def parse_media_url(url: str) -> tuple[str, str]:
    """(bucket, prefix) of 's3://bucket/some/prefix'; BadMediaUrl with the reason otherwise."""
    parts = urlsplit(url or "")
    bucket, prefix = parts.netloc, parts.path.strip("/")
    if parts.scheme != "s3" or parts.query or parts.fragment or "@" in bucket or ":" in bucket:
        raise BadMediaUrl(f"BALIZA_MEDIA_URL: {url!r} is not s3://bucket/prefix (leave it unset for BALIZA_MEDIA_DIR)")
    if not (3 <= len(bucket) <= 63) or not set(bucket) <= set("abcdefghijklmnopqrstuvwxyz0123456789.-") \
            or not bucket[0].isalnum() or not bucket[-1].isalnum():
        raise BadMediaUrl(f"BALIZA_MEDIA_URL: bucket {bucket!r} is not a valid S3 bucket name "
                          "(3-63 lowercase letters, digits, dots and hyphens)")
    if prefix:
        try:
            validate_key(prefix)
        except InvalidKey:
            raise BadMediaUrl(f"BALIZA_MEDIA_URL: prefix {prefix!r} is not plain path segments") from None
    return bucket, prefix


def make_client(endpoint_url: str | None = None, region: str | None = None):
    """A boto3 S3 client that fails fast with path-style addressing (SeaweedFS, MinIO and AWS all take it).

    Connect 3 s, read 20 s; botocore's standard retries (3 attempts in all, with backoff, on
    connection errors, throttling and 5xx; boto3's AWS_MAX_ATTEMPTS changes the count), so a dead
    store answers 503 within a few seconds instead of holding the request.
    """
    import boto3
    from botocore.config import Config

    from botocore.handlers import add_expect_header

    session = boto3.session.Session()
    config = Config(connect_timeout=3, read_timeout=20, retries={"mode": "standard"},
                    s3={"addressing_style": "path"}, max_pool_connections=20)
    client = session.client("s3", endpoint_url=endpoint_url or None,
                            region_name=region or session.region_name or "us-east-1", config=config)
    # No "Expect: 100-continue": a photo is a few hundred kB, cheaper sent than asked about, and the wait for the
    # server's "100 Continue" (read a byte at a time) cost each put a round trip and ~0.3 ms of CPU (issue 22).
    client.meta.events.unregister("before-call.s3", add_expect_header)
    return client


class S3Storage:
    """MediaStorage on a bucket: key 'originals/ab/….jpg' is object '<prefix>/originals/ab/….jpg'."""

    def __init__(self, bucket: str, prefix: str = "", client=None) -> None:
        self.bucket, self.prefix = bucket, prefix.strip("/")
        self.client = client if client is not None else make_client()

    @classmethod
    def from_url(cls, url: str, endpoint_url: str | None = None, region: str | None = None) -> "S3Storage":
        """The storage a BALIZA_MEDIA_URL names."""
        bucket, prefix = parse_media_url(url)
        return cls(bucket, prefix, make_client(endpoint_url, region))

    def name_of(self, key: str) -> str:
        """The object name of a (validated) key."""
        key = validate_key(key)
        return f"{self.prefix}/{key}" if self.prefix else key

    def _call(self, operation: str, **params):
        """One S3 call with outages as StorageUnavailable; other client errors pass through."""
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            return getattr(self.client, operation)(Bucket=self.bucket, **params)
        except ClientError as error:
            if error.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0) >= 500:
                raise StorageUnavailable(f"S3 {operation}: {error}") from error
            raise
        except BotoCoreError as error:  # connection refused or reset, timeouts, DNS
            raise StorageUnavailable(f"S3 {operation}: {error}") from error

    def _head(self, key: str) -> dict | None:
        """The object's head, or None if absent."""
        from botocore.exceptions import ClientError

        try:
            return self._call("head_object", Key=self.name_of(key))
        except ClientError as error:
            if _status(error) == 404:
                return None
            raise StorageError(f"S3 head {key}: {error}") from error

    def put(self, key: str, data: bytes, sha256: str | None = None) -> None:
        """Create once (If-None-Match: *); same bytes again refreshes the time; other bytes are KeyConflict.

        ``sha256`` is the bytes' digest when the caller already computed it (an upload is hashed once).
        """
        from botocore.exceptions import ClientError

        name, sha256 = self.name_of(key), sha256 or hashlib.sha256(data).hexdigest()
        content_type = CONTENT_TYPES.get(name.rsplit(".", 1)[-1], "application/octet-stream")
        try:
            self._call("put_object", Key=name, Body=data, Metadata={SHA_META: sha256}, ContentType=content_type,
                       IfNoneMatch="*")
            return
        except ClientError as error:
            if _status(error) not in (409, 412):  # 412: the key exists (409: a concurrent first put)
                raise StorageError(f"S3 put {key}: {error}") from error
        head = self._head(key)
        if head is None or self._sha_of(key, head) != sha256:
            raise KeyConflict(f"{key} holds other bytes")
        self._call("copy_object", Key=name, CopySource={"Bucket": self.bucket, "Key": name},
                   MetadataDirective="REPLACE", ContentType=content_type,
                   Metadata={SHA_META: sha256, "copy": uuid.uuid4().hex})  # S3 refuses a copy onto itself that changes nothing

    def _sha_of(self, key: str, head: dict) -> str:
        """The stored hash from the metadata; an object written by another tool is hashed by streaming it."""
        stored = head.get("Metadata", {}).get(SHA_META)
        if stored:
            return stored
        return sha256_of_stream(self.open_stream(key).stream)

    def content_sha256(self, key: str) -> str:
        """The SHA-256 of the stored bytes (from the metadata when present); MissingKey if absent."""
        head = self._head(key)
        if head is None:
            raise MissingKey(key)
        return self._sha_of(key, head)

    def get(self, key: str) -> bytes:
        """The stored bytes; MissingKey if absent."""
        from botocore.exceptions import BotoCoreError

        with self.open_stream(key).stream as body:
            try:
                return body.read()
            except BotoCoreError as error:  # the body cut or timed out mid-read: the server went away
                raise StorageUnavailable(f"S3 get {key}: {error}") from error

    def open_stream(self, key: str) -> StoredFile:
        """The object's body as a stream (read in chunks, closed by the caller) and its length."""
        from botocore.exceptions import ClientError

        try:
            answer = self._call("get_object", Key=self.name_of(key))
        except ClientError as error:
            if _status(error) == 404:
                raise MissingKey(key) from None
            raise StorageError(f"S3 get {key}: {error}") from error
        return StoredFile(answer["Body"], answer["ContentLength"])

    def exists(self, key: str) -> bool:
        """Whether the object exists."""
        return self._head(key) is not None

    def delete(self, key: str) -> None:
        """Remove the object; absent is fine (S3 answers 204 either way)."""
        self._call("delete_object", Key=self.name_of(key))

    def modified_at(self, key: str) -> datetime:
        """The object's LastModified (aware UTC); MissingKey if absent."""
        head = self._head(key)
        if head is None:
            raise MissingKey(key)
        return head["LastModified"].astimezone(timezone.utc)

    def iter_keys(self, prefix: str = "") -> Iterator[str]:
        """Keys starting with ``prefix``, sorted (S3 lists in byte order), a page of 1000 at a time."""
        *folders, last = prefix.split("/")
        if not all(_is_key(folder) for folder in folders) or not set(last) <= _PREFIX_PART:
            raise InvalidKey(f"invalid key prefix: {prefix!r}")
        start = f"{self.prefix}/" if self.prefix else ""
        token = None
        while True:
            page = self._call("list_objects_v2", Prefix=start + prefix,
                              **({"ContinuationToken": token} if token else {}))
            for item in page.get("Contents", []):
                key = item["Key"][len(start):]
                if _is_key(key):
                    yield key
            if not page.get("IsTruncated"):
                return
            token = page["NextContinuationToken"]

    def ping(self) -> None:
        """The bucket answers (HEAD bucket); StorageUnavailable when not, StorageError when it is refused."""
        from botocore.exceptions import ClientError

        try:
            self._call("head_bucket")
        except ClientError as error:
            raise StorageError(f"S3 bucket {self.bucket}: {error}") from error


def _status(error) -> int:
    """The HTTP status of a botocore ClientError."""
    return error.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0)
