#!/usr/bin/env python3
"""Writes a docker-archive image holding one static binary at /<name> (FROM scratch), for
`ctr images import`. Used for the real node's pause image (node-lib.sh): no registry is reachable
here and the node must not need podman to start. Deterministic (fixed mtimes and owners), so the
same binary gives the same image ID and a second import is a no-op.

usage: single-binary-image.py BINARY IMAGE_REF OUT.tar
"""
import hashlib
import io
import json
import os
import sys
import tarfile


def tar_bytes(members):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, data, mode in members:
            info = tarfile.TarInfo(name)
            info.mode, info.mtime = mode, 0
            info.uid = info.gid = 0
            if data is None:
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
            else:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def main(binary, ref, out):
    name = os.path.basename(binary)
    with open(binary, "rb") as f:
        # The root directory entry: without it the unpacked root is 0700 and a non-root user (the
        # pause process runs as 65535) cannot reach /pause.
        layer = tar_bytes([("./", None, 0o755), (name, f.read(), 0o755)])
    layer_id = hashlib.sha256(layer).hexdigest()
    config = json.dumps({
        "architecture": "amd64",
        "os": "linux",
        "config": {"Entrypoint": ["/" + name], "User": "65535:65535"},
        "rootfs": {"type": "layers", "diff_ids": ["sha256:" + layer_id]},
        "history": [{"created_by": "single-binary-image.py " + name}],
    }, sort_keys=True).encode()
    config_id = hashlib.sha256(config).hexdigest()
    manifest = json.dumps([{
        "Config": config_id + ".json",
        "RepoTags": [ref],
        "Layers": [layer_id + "/layer.tar"],
    }]).encode()
    archive = tar_bytes([
        (config_id + ".json", config, 0o644),
        (layer_id + "/layer.tar", layer, 0o644),
        ("manifest.json", manifest, 0o644),
    ])
    tmp = out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(archive)
    os.replace(tmp, out)
    print("sha256:" + config_id)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().splitlines()[-1])
    main(*sys.argv[1:])
