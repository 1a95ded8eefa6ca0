"""What the Python tests need of the test gateway (Tests/Support/s3/ceph-rgw.sh): a boto3 client with path-style
addressing on the endpoint and keys of DIR/env, and the few operations the tests share. Run with Debian's
/usr/bin/python3 (python3-boto3); a newer boto3 works too (its default request checksums are turned off, as the
gateway, Ceph 16, does not know them).

    import s3_client
    s3 = s3_client.client("/tmp/gw")            # DIR given to `ceph-rgw.sh start`, or its env file
    s3_client.create_bucket(s3, "images")
    s3_client.put_file(s3, "images", "a.szi", "/path/a.szi")
    data = s3_client.get_range(s3, "images", "a.szi", 0, 1023)   # bytes 0-1023, inclusive as in HTTP
    s3_client.delete_bucket(s3, "images")       # its objects and unfinished multipart uploads first

A command line too: s3_client.py DIR mb BUCKET | put BUCKET KEY FILE | get BUCKET KEY START END | ls BUCKET | rb BUCKET
"""
import os
import sys

import boto3
from botocore.config import Config


def load_env(path):
    """The S3_* settings of a gateway: `path` is its folder or its env file. Returns a dict."""
    if os.path.isdir(path):
        path = os.path.join(path, "env")
    env = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#") and "=" in line:
                name, value = line.split("=", 1)
                env[name] = value
    for name in ("S3_ENDPOINT", "S3_ACCESS_KEY", "S3_SECRET_KEY", "S3_REGION"):
        if name not in env:
            raise ValueError(f"{path} has no {name}")
    return env


def client(path, **config):
    """A boto3 S3 client for the gateway whose folder (or env file) is `path`, or whose S3_* settings `path` is (a
    dict, as load_env returns): path-style, Signature Version 4, a few retries; `config` adds botocore Config settings
    (max_pool_connections=…, read_timeout=…)."""
    env = path if isinstance(path, dict) else load_env(path)
    settings = dict(s3={"addressing_style": "path"}, signature_version="s3v4",
                    retries={"max_attempts": 3, "mode": "standard"}, connect_timeout=5, read_timeout=30)
    settings.update(config)
    try:
        # boto3 ≥ 1.36 adds CRC checksums to every upload unless told otherwise; Ceph 16's gateway refuses them.
        boto_config = Config(request_checksum_calculation="when_required",
                             response_checksum_validation="when_required", **settings)
    except TypeError:
        boto_config = Config(**settings)
    return boto3.client("s3", endpoint_url=env["S3_ENDPOINT"], region_name=env["S3_REGION"],
                        aws_access_key_id=env["S3_ACCESS_KEY"], aws_secret_access_key=env["S3_SECRET_KEY"],
                        config=boto_config)


def create_bucket(s3, bucket):
    """Creates `bucket`; one that this user already owns is fine."""
    try:
        s3.create_bucket(Bucket=bucket)
    except (s3.exceptions.BucketAlreadyOwnedByYou, s3.exceptions.BucketAlreadyExists):
        # Ceph 16 answers BucketAlreadyExists to the owner too.
        pass


def put_file(s3, bucket, key, path, **extra):
    """Uploads the file at `path` as `key` in one PUT (`extra`: ContentType=…, ACL=…); returns its ETag."""
    with open(path, "rb") as f:
        return s3.put_object(Bucket=bucket, Key=key, Body=f, **extra)["ETag"]


def get_range(s3, bucket, key, start, end):
    """Bytes `start` through `end` (inclusive, as in an HTTP Range) of `key`."""
    return s3.get_object(Bucket=bucket, Key=key, Range=f"bytes={start}-{end}")["Body"].read()


def list_keys(s3, bucket, prefix=""):
    """Every key under `prefix` in `bucket`, through ListObjectsV2's pages."""
    keys = []
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
        keys.extend(item["Key"] for item in page.get("Contents", []))
    return keys


def delete_bucket(s3, bucket):
    """Deletes `bucket` with everything in it: its objects (1,000 a request) and unfinished multipart uploads. A
    bucket that does not exist is fine."""
    try:
        keys = list_keys(s3, bucket)
    except s3.exceptions.NoSuchBucket:
        return
    for i in range(0, len(keys), 1000):
        s3.delete_objects(Bucket=bucket, Delete={"Objects": [{"Key": k} for k in keys[i:i + 1000]], "Quiet": True})
    for page in s3.get_paginator("list_multipart_uploads").paginate(Bucket=bucket):
        for upload in page.get("Uploads", []):
            s3.abort_multipart_upload(Bucket=bucket, Key=upload["Key"], UploadId=upload["UploadId"])
    s3.delete_bucket(Bucket=bucket)


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    s3 = client(argv[1])
    command, args = argv[2], argv[3:]
    if command == "mb":
        create_bucket(s3, *args)
    elif command == "put":
        print(put_file(s3, *args))
    elif command == "get":
        sys.stdout.buffer.write(get_range(s3, args[0], args[1], int(args[2]), int(args[3])))
    elif command == "ls":
        print("\n".join(list_keys(s3, *args)))
    elif command == "rb":
        delete_bucket(s3, *args)
    else:
        print(f"unknown command {command}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
