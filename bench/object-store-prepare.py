#!/usr/bin/env python3
"""Prepares bench/object-store.sh's bucket on a gateway (Tests/Support/s3/ceph-rgw.sh's DIR or env file):

    object-store-prepare.py GATEWAY BUCKET SZI OUT       uploads SZI as BUCKET/img.szi (readable by anyone, so that
        wrk can read it unsigned), and writes OUT.tiles (the finest level's tile paths, as Tiler serves them) and
        OUT.ranges (the same tiles as "PATH FIRST LAST" ranged reads of the object, for bench/wrk/ranged-list.lua)
    object-store-prepare.py GATEWAY BUCKET many N SZI    puts N small objects and one SZI under BUCKET/many/
"""
import os
import struct
import sys
import zipfile
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Support", "s3"))
import s3_client  # noqa: E402


def data_offset(archive, info):
    """Where an entry's bytes start: after its local header (30 bytes, the name, the local extra field)."""
    archive.seek(info.header_offset)
    header = archive.read(30)
    name_length, extra_length = struct.unpack("<HH", header[26:30])
    return info.header_offset + 30 + name_length + extra_length


def prepare(gateway, bucket, szi, out):
    s3 = s3_client.client(gateway)
    s3_client.create_bucket(s3, bucket)
    s3_client.put_file(s3, bucket, "img.szi", szi)
    s3.put_bucket_acl(Bucket=bucket, ACL="public-read")
    s3.put_object_acl(Bucket=bucket, Key="img.szi", ACL="public-read")
    with zipfile.ZipFile(szi) as z, open(szi, "rb") as raw:
        tiles = [i for i in z.infolist() if "_files/" in i.filename and i.filename.endswith((".jpg", ".jpeg", ".png", ".webp"))]
        top = max(int(i.filename.split("/")[-2]) for i in tiles)
        finest = [i for i in tiles if int(i.filename.split("/")[-2]) == top]
        with open(out + ".tiles", "w") as paths, open(out + ".ranges", "w") as ranges:
            for info in finest:
                tile = info.filename.split("_files/", 1)[1]
                paths.write(f"/images/img_files/{tile}\n")
                start = data_offset(raw, info)
                ranges.write(f"/{bucket}/img.szi {start} {start + info.file_size - 1}\n")
    print(top)


def many(gateway, bucket, count, szi):
    s3 = s3_client.client(gateway, max_pool_connections=32)
    s3_client.create_bucket(s3, bucket)
    with ThreadPoolExecutor(32) as pool:
        list(pool.map(lambda i: s3.put_object(Bucket=bucket, Key=f"many/notes/{i:06d}.txt", Body=b"x"), range(count)))
    s3_client.put_file(s3, bucket, "many/img.szi", szi)


if __name__ == "__main__":
    if sys.argv[3] == "many":
        many(sys.argv[1], sys.argv[2], int(sys.argv[4]), sys.argv[5])
    else:
        prepare(*sys.argv[1:5])
