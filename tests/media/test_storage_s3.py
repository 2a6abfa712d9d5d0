"""Tests for inspection.media.storage_s3 beyond the shared contract (test_storage.py): hashes, races, outages."""
import hashlib

import pytest
from botocore.stub import Stubber

from inspection.media.storage import KeyConflict, StorageError, StorageUnavailable, media_key
from inspection.media.storage_s3 import S3Storage, make_client

KEY = media_key("originals", "ef" * 32)


@pytest.fixture
def bucket_store(s3_bucket):
    return S3Storage(s3_bucket.name, s3_bucket.prefix, s3_bucket.server.storage_client())


def test_an_object_written_by_another_tool_is_compared_by_its_bytes(bucket_store, s3_bucket):
    s3_bucket.server.client().put_object(Bucket=s3_bucket.name, Key=f"media/{KEY}", Body=b"copied by rclone")
    assert bucket_store.content_sha256(KEY) == hashlib.sha256(b"copied by rclone").hexdigest()
    bucket_store.put(KEY, b"copied by rclone")  # the same bytes: a no-op, and now the hash is recorded
    head = s3_bucket.server.client().head_object(Bucket=s3_bucket.name, Key=f"media/{KEY}")
    assert head["Metadata"]["sha256"] == hashlib.sha256(b"copied by rclone").hexdigest()
    assert head["ContentType"] == "image/jpeg"
    with pytest.raises(KeyConflict):
        bucket_store.put(KEY, b"other bytes")


def test_a_retry_compares_the_recorded_hash_without_downloading(bucket_store, monkeypatch):
    bucket_store.put(KEY, b"photo")
    monkeypatch.setattr(S3Storage, "open_stream", lambda *a: pytest.fail("downloaded the object"))
    bucket_store.put(KEY, b"photo")
    with pytest.raises(KeyConflict):
        bucket_store.put(KEY, b"another photo")


def test_the_server_refuses_to_overwrite_a_key_a_racing_writer_created(bucket_store, s3_bucket, monkeypatch):
    """The first put carries If-None-Match: *; SeaweedFS honours it, so two first puts cannot both win."""
    client = s3_bucket.server.client()
    real_put = bucket_store.client.put_object

    def racing_put(**params):  # another server stores other bytes between our check and our write
        client.put_object(Bucket=params["Bucket"], Key=params["Key"], Body=b"the other server's",
                          Metadata={"sha256": hashlib.sha256(b"the other server's").hexdigest()})
        return real_put(**params)

    monkeypatch.setattr(bucket_store.client, "put_object", racing_put)
    with pytest.raises(KeyConflict):
        bucket_store.put(KEY, b"ours")
    assert bucket_store.get(KEY) == b"the other server's"


def test_a_put_sends_its_body_without_asking_first(bucket_store):
    """No Expect: 100-continue (issue 22): the body goes with the headers, in one round trip."""
    sent = []
    bucket_store.client.meta.events.register("before-send.s3.PutObject", lambda request, **_: sent.append(request))
    bucket_store.put(media_key("thumbs", "ab" * 32), b"a thumbnail")
    assert sent and "Expect" not in sent[0].headers
    assert bucket_store.get(media_key("thumbs", "ab" * 32)) == b"a thumbnail"


def test_a_dead_endpoint_is_storage_unavailable(monkeypatch):
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "1")
    store = S3Storage("baliza", "m", make_client("http://127.0.0.1:9"))  # the discard port: nothing listens
    for call in (store.ping, lambda: store.put(KEY, b"x"), lambda: store.get(KEY), lambda: list(store.iter_keys())):
        with pytest.raises(StorageUnavailable):
            call()


@pytest.mark.parametrize("status, error", [(503, StorageUnavailable), (500, StorageUnavailable), (403, StorageError)])
def test_server_errors_are_unavailable_and_refusals_are_errors(status, error, monkeypatch):
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "1")
    client = make_client("http://127.0.0.1:9")
    store = S3Storage("baliza", "", client)
    with Stubber(client) as stub:
        stub.add_client_error("head_bucket", "SlowDown" if status == 503 else "Denied", http_status_code=status)
        with pytest.raises(error) as raised:
            store.ping()
    assert isinstance(raised.value, StorageUnavailable) is (status >= 500)


def test_ping_on_a_bucket_that_does_not_exist_is_an_error(s3_bucket):
    store = S3Storage("no-such-bucket-here", "", s3_bucket.server.storage_client())
    with pytest.raises(StorageError):
        store.ping()
    S3Storage(s3_bucket.name, "", s3_bucket.server.storage_client()).ping()
